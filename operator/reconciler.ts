import {
  CoreV1Api,
  CustomObjectsApi,
  NetworkingV1Api,
  type KubeConfig,
  type KubernetesObject,
  type V1PersistentVolumeClaim,
  type V1Pod,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  Annotations,
  EXPIRED,
  GROUP,
  Labels,
  SandboxPod,
  VERSION,
  forwardedServiceName,
  internalUrl,
  isExpired,
  previewUrl,
  sandboxExpiry,
  sandboxdSecretName,
  workspaceClaimName,
  type Condition,
  type Expiry,
  type ForwardedPort,
  type Policy,
  type Sandbox,
  type SandboxPhase,
  type SandboxStatus,
  type SandboxTemplate,
  type SandboxTemplateSpec,
} from '../core/index.ts';
import {
  ignoring,
  isStatus,
  setCondition,
  splitKey,
  type Informer,
  type PolicyStore,
  type SandboxdLocator,
} from '../kube/index.ts';
import {
  SPEC_HASH,
  networkPolicy,
  portIngress,
  portService,
  sandboxPod,
  tokenSecret,
  workspaceClaim,
} from './manifests.ts';
import type { OperatorSettings } from './settings.ts';
import { AgentConfigurer } from './agent.ts';
import { SandboxPatcher } from './sandbox-patch.ts';

export const FINALIZER = 'svc.io/finalizer';
const SNAPSHOTS = { group: 'snapshot.storage.k8s.io', version: 'v1', plural: 'volumesnapshots' };

/** What one pass decided: the phase, why, and when to look again. */
interface Outcome {
  phase: SandboxPhase;
  message: string;
  conditions: { type: string; ok: boolean; reason: string; message: string }[];
  requeueMs?: number;
  forwardedPorts?: ForwardedPort[];
  podName?: string;
}

/** How often a running sandbox's template process is looked at through sandboxd. */
const TEMPLATE_PROCESS_CHECK_MS = 5_000;

export interface ReconcilerDeps {
  kc: KubeConfig;
  settings: OperatorSettings;
  sandboxes: Informer<KubernetesObject>;
  pods: Informer<V1Pod>;
  claims: Informer<V1PersistentVolumeClaim>;
  /** Governance policies: `maxConcurrentInvokesPerSandbox` lowers the agent's cap. */
  policies: PolicyStore<Policy>;
  locator: SandboxdLocator;
  now?: () => Date;
}

/**
 * One Sandbox's reconcile: from its spec and template to its PVC, token Secret, Pod,
 * NetworkPolicy and port Services, then its status. Every step is idempotent (create when
 * missing, 409 means done), so a restart mid-way never duplicates anything.
 */
export class SandboxReconciler {
  readonly #d: ReconcilerDeps;
  readonly #core: CoreV1Api;
  readonly #net: NetworkingV1Api;
  readonly #custom: CustomObjectsApi;
  readonly #sandboxes: SandboxPatcher;
  readonly #now: () => Date;
  readonly #agent: AgentConfigurer;

  constructor(deps: ReconcilerDeps) {
    this.#d = deps;
    this.#core = deps.kc.makeApiClient(CoreV1Api);
    this.#net = deps.kc.makeApiClient(NetworkingV1Api);
    this.#custom = deps.kc.makeApiClient(CustomObjectsApi);
    this.#sandboxes = new SandboxPatcher(deps.kc);
    this.#now = deps.now ?? (() => new Date());
    this.#agent = new AgentConfigurer({
      kc: deps.kc,
      policies: deps.policies,
      locator: deps.locator,
      now: this.#now,
      event: (log, sandbox, type, reason, message) => this.#event(log, sandbox, type, reason, message),
    });
  }

  /** One pass; `log` is the pass's own logger (it carries the key), used for all it logs. */
  reconcile = async (key: string, log: Logger): Promise<number | void> => {
    const { namespace, name } = splitKey(key);
    const sandbox = this.#d.sandboxes.get(name, namespace) as unknown as Sandbox | undefined;
    if (!sandbox) return;
    if (sandbox.metadata.deletionTimestamp) return this.#finalize(log, sandbox);
    if (!sandbox.metadata.finalizers?.includes(FINALIZER)) {
      await this.#sandboxes.patch(sandbox, {
        metadata: {
          finalizers: [...(sandbox.metadata.finalizers ?? []), FINALIZER],
          resourceVersion: sandbox.metadata.resourceVersion,
        },
      });
      return; // the update comes back through the watch
    }
    const outcome = await this.#converge(log, sandbox);
    await this.#writeStatus(log, sandbox, outcome);
    return outcome.requeueMs;
  };

  async #converge(log: Logger, sandbox: Sandbox): Promise<Outcome> {
    const { namespace, name } = sandbox.metadata as { namespace: string; name: string };
    const ref = sandbox.spec.templateRef;
    const template = await this.#template(namespace, ref.kind, ref.name);
    if (!template) {
      const message = `${ref.kind} "${ref.name}" not found`;
      return {
        phase: 'Error',
        message,
        // Ready too, so tools that wait on Ready (kubectl wait, Argo CD) see why at once.
        conditions: [
          { type: 'TemplateResolved', ok: false, reason: 'TemplateNotFound', message },
          { type: 'Ready', ok: false, reason: 'TemplateNotFound', message },
        ],
        requeueMs: 5000, // templates are not watched: look again until it appears
      };
    }
    const resolved = {
      type: 'TemplateResolved',
      ok: true,
      reason: 'Resolved',
      message: `${ref.kind}/${ref.name}`,
    };

    const token = await this.#d.locator.token(namespace, name, sandbox.metadata.uid!);
    await this.#ensure(
      () => this.#core.readNamespacedSecret({ name: sandboxdSecretName(name), namespace }),
      () => this.#core.createNamespacedSecret({ namespace, body: tokenSecret(sandbox, token) }),
      (current) =>
        current.data?.[SandboxPod.tokenKey] === Buffer.from(token).toString('base64')
          ? undefined
          : this.#retoken(log, sandbox, token),
    );

    const volume = await this.#ensureClaim(sandbox, template);
    if (volume.error) {
      return {
        phase: 'Error',
        message: volume.error,
        conditions: [
          resolved,
          { type: 'VolumeReady', ok: false, reason: 'SnapshotUnavailable', message: volume.error },
          { type: 'Ready', ok: false, reason: 'SnapshotUnavailable', message: volume.error },
        ],
      };
    }

    const policy = networkPolicy(sandbox, template, this.#d.settings);
    await this.#ensure(
      () => this.#net.readNamespacedNetworkPolicy({ name: policy.metadata!.name!, namespace }),
      () => this.#net.createNamespacedNetworkPolicy({ namespace, body: policy }),
      (current) =>
        // Written only when what it should say changed, not on every pass.
        current.metadata?.annotations?.[SPEC_HASH] === policy.metadata?.annotations?.[SPEC_HASH]
          ? undefined
          : this.#net.replaceNamespacedNetworkPolicy({
              name: policy.metadata!.name!,
              namespace,
              body: policy,
            }),
    );
    const forwardedPorts = await this.#ensurePorts(sandbox);

    const pod = this.#d.pods.get(name, namespace);
    const expiry = this.#expiry(sandbox, template, pod);
    if (expiry.expired) {
      // Status only, never spec (a GitOps tool would put spec back and restart it). The Pod
      // goes on the next pass, once the cache holds this status, so no pass ever sees the
      // Pod gone without the expiry and creates it again.
      await this.#event(log, sandbox, 'Normal', expiry.reason, expiry.message);
      return {
        phase: 'Stopped',
        message: expiry.message,
        forwardedPorts,
        conditions: [
          resolved,
          { type: EXPIRED, ok: true, reason: expiry.reason, message: expiry.message },
          { type: 'Stopped', ok: true, reason: expiry.reason, message: expiry.message },
          { type: 'Ready', ok: false, reason: 'Stopped', message: 'the sandbox is stopped' },
        ],
      };
    }

    const volumeCondition = {
      type: 'VolumeReady',
      ok: volume.bound,
      reason: volume.bound ? 'Bound' : volume.hydrating ? 'Hydrating' : 'Pending',
      message: volume.bound
        ? `claim ${workspaceClaimName(name)} is bound`
        : volume.hydrating
          ? `hydrating the workspace from VolumeSnapshot "${sandbox.spec.cloneFromSnapshot}"`
          : `waiting for claim ${workspaceClaimName(name)} to bind`,
    };

    const expired = isExpired(sandbox);
    if (sandbox.spec.stopped || expired) {
      if (pod && !pod.metadata?.deletionTimestamp) await this.#deletePod(namespace, name);
      const gone = !pod;
      const reason = sandbox.status?.conditions?.find((c) => c.type === 'Stopped' && c.status === 'True');
      return {
        phase: gone ? 'Stopped' : (sandbox.status?.phase ?? 'Creating'),
        message: gone ? (reason?.message ?? 'stopped') : 'stopping: waiting for the Pod to terminate',
        forwardedPorts,
        conditions: [
          resolved,
          volumeCondition,
          { type: 'Ready', ok: false, reason: 'Stopped', message: 'the sandbox is stopped' },
          ...(reason || expired
            ? []
            : [{ type: 'Stopped', ok: true, reason: 'StopRequested', message: 'spec.stopped is true' }]),
        ],
      };
    }

    const waiting = (message: string): Outcome => ({
      phase: 'Creating',
      message,
      forwardedPorts,
      podName: name,
      conditions: [
        resolved,
        volumeCondition,
        { type: 'Ready', ok: false, reason: 'PodNotReady', message },
        { type: 'Stopped', ok: false, reason: 'Running', message: '' },
      ],
    });
    if (volume.waitMs) return { ...waiting(volumeCondition.message), requeueMs: volume.waitMs };
    if (!pod) {
      await ignoring([409], () =>
        this.#core.createNamespacedPod({ namespace, body: sandboxPod(sandbox, template, this.#d.settings) }),
      );
    }
    if (!pod || pod.metadata?.deletionTimestamp) return waiting('creating the sandbox Pod');
    if (!volume.bound) return { ...waiting(volumeCondition.message), requeueMs: volume.waitMs };

    const failing = podFailure(pod, this.#d.settings.maxRestarts);
    if (failing) {
      return {
        phase: 'Error',
        message: failing,
        forwardedPorts,
        podName: name,
        conditions: [
          resolved,
          volumeCondition,
          { type: 'Ready', ok: false, reason: 'PodFailing', message: failing },
        ],
        requeueMs: 10_000,
      };
    }
    const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    if (!ready) return waiting('waiting for the sandbox Pod to become ready');
    const agentMs = await this.#agent.reconcile(log, sandbox, template, pod).catch((err: unknown) => {
      // Configure trouble never takes a running sandbox down: log it and look again soon.
      log.warn({ err }, 'agent configure pass failed');
      return 5_000;
    });
    const process = await this.#templateProcess(log, sandbox, template, pod);
    const requeues = [agentMs, expiry.requeueAfter, process?.requeueMs].filter(
      (x): x is number => x !== undefined,
    );
    return {
      phase: 'Running',
      message: 'the sandbox is running',
      forwardedPorts,
      podName: name,
      conditions: [
        resolved,
        volumeCondition,
        { type: 'Ready', ok: true, reason: 'PodReady', message: 'sandboxd answers' },
        { type: 'Stopped', ok: false, reason: 'Running', message: '' },
        ...(process ? [process.condition] : []),
        ...resumed(sandbox),
      ],
      requeueMs: requeues.length > 0 ? Math.min(...requeues) : undefined,
    };
  }

  /**
   * The template's own process, as sandboxd (its supervisor) reports it: a restart count that
   * grew since the last look becomes a `TemplateProcessRestarted` event, and the count stays
   * on the `TemplateProcess` condition. The Pod says nothing of it (sandboxd, its PID 1, stays
   * up), so a sandbox with a template command is looked at again every few seconds.
   */
  async #templateProcess(
    log: Logger,
    sandbox: Sandbox,
    template: SandboxTemplateSpec,
    pod: V1Pod,
  ): Promise<{ condition: Outcome['conditions'][number]; requeueMs: number } | undefined> {
    if ([...(template.command ?? []), ...(template.args ?? [])].length === 0) return undefined;
    const { namespace, name } = sandbox.metadata as { namespace: string; name: string };
    const health = await this.#d.locator
      .client(namespace, name, pod.metadata?.uid)
      .then((c) => c.status())
      .catch(() => undefined);
    const restarts = health?.template?.restarts;
    if (restarts === undefined) return undefined;
    const previous = sandbox.status?.conditions?.find((c) => c.type === 'TemplateProcess');
    const before = Number(/restarted (\d+) time/.exec(previous?.message ?? '')?.[1] ?? 0);
    const message = `the template's process restarted ${restarts} time${restarts === 1 ? '' : 's'}`;
    if (restarts > before) {
      await this.#event(
        log,
        sandbox,
        'Warning',
        'TemplateProcessRestarted',
        `${message}; sandboxd restarted it`,
      );
    }
    return {
      condition: {
        type: 'TemplateProcess',
        ok: health!.template!.running,
        reason: restarts > 0 ? 'Restarted' : 'Running',
        message,
      },
      requeueMs: TEMPLATE_PROCESS_CHECK_MS,
    };
  }

  /** The workspace claim: created when missing; for a clone, only once its snapshot is ready. */
  async #ensureClaim(
    sandbox: Sandbox,
    template: SandboxTemplateSpec,
  ): Promise<{ bound: boolean; hydrating?: boolean; error?: string; waitMs?: number }> {
    const { namespace, name } = sandbox.metadata as { namespace: string; name: string };
    const existing = this.#d.claims.get(workspaceClaimName(name), namespace);
    const snapshotName = sandbox.spec.cloneFromSnapshot;
    if (existing) return { bound: existing.status?.phase === 'Bound', hydrating: !!snapshotName };
    let clone: { snapshot: string; storageClassName?: string } | undefined;
    if (snapshotName) {
      const snapshot = await this.#snapshot(namespace, snapshotName);
      const waitedMs = this.#now().getTime() - Date.parse(String(sandbox.metadata.creationTimestamp));
      if (!snapshot?.status?.readyToUse) {
        if (waitedMs > this.#d.settings.snapshotWaitSeconds * 1000) {
          return {
            bound: false,
            error: snapshot
              ? `VolumeSnapshot "${snapshotName}" did not become ready within ${this.#d.settings.snapshotWaitSeconds}s`
              : `VolumeSnapshot "${snapshotName}" not found in namespace ${namespace}`,
          };
        }
        // VolumeSnapshots are not watched (their CRD is optional in a cluster): look again
        // soon while the clone is young, since a small volume's snapshot is ready in moments,
        // then back off to every 5 s for the large ones.
        return {
          bound: false,
          hydrating: true,
          waitMs: Math.min(5000, Math.max(200, Math.round(waitedMs / 10))),
        };
      }
      const sourceClaim = snapshot.spec?.source?.persistentVolumeClaimName;
      const source = sourceClaim
        ? await this.#core
            .readNamespacedPersistentVolumeClaim({ name: sourceClaim, namespace })
            .catch(() => undefined)
        : undefined;
      clone = { snapshot: snapshotName, storageClassName: source?.spec?.storageClassName };
    }
    await ignoring([409], () =>
      this.#core.createNamespacedPersistentVolumeClaim({
        namespace,
        body: workspaceClaim(sandbox, template, clone),
      }),
    );
    return { bound: false, hydrating: !!clone };
  }

  async #ensurePorts(sandbox: Sandbox): Promise<ForwardedPort[]> {
    const { namespace, name } = sandbox.metadata as { namespace: string; name: string };
    const ports = sandbox.spec.ports ?? [];
    const domain = this.#d.settings.previewDomain;
    const labelSelector = `${Labels.sandbox}=${name}`;
    const wanted = new Set(ports.map((p) => forwardedServiceName(name, p.port)));
    for (const port of ports) {
      const service = portService(sandbox, port);
      await ignoring([409], () => this.#core.createNamespacedService({ namespace, body: service }));
      if (domain) {
        await ignoring([409], () =>
          this.#net.createNamespacedIngress({
            namespace,
            body: portIngress(sandbox, port, this.#d.settings, domain),
          }),
        );
      }
    }
    const services = await this.#core.listNamespacedService({ namespace, labelSelector });
    for (const s of services.items) {
      if (s.metadata?.name?.startsWith('pf-') && !wanted.has(s.metadata.name))
        await ignoring([404], () =>
          this.#core.deleteNamespacedService({ name: s.metadata!.name!, namespace }),
        );
    }
    const ingresses = await this.#net.listNamespacedIngress({ namespace, labelSelector });
    for (const i of ingresses.items) {
      if (i.metadata?.name?.startsWith('pf-') && (!domain || !wanted.has(i.metadata.name)))
        await ignoring([404], () =>
          this.#net.deleteNamespacedIngress({ name: i.metadata!.name!, namespace }),
        );
    }
    return ports.map((p) => ({
      port: p.port,
      protocol: p.protocol,
      internalUrl: internalUrl(name, namespace, p.port),
      ...(domain ? { previewUrl: previewUrl(name, p.port, domain) } : {}),
    }));
  }

  /** The lifetime of the Pod in the cache (none while it is going away). */
  #expiry(sandbox: Sandbox, template: SandboxTemplateSpec, pod: V1Pod | undefined): Expiry {
    if (sandbox.spec.stopped || isExpired(sandbox) || pod?.metadata?.deletionTimestamp)
      return { expired: false };
    const created = pod?.metadata?.creationTimestamp;
    return sandboxExpiry(sandbox, template, created ? new Date(created) : undefined, this.#now());
  }

  async #writeStatus(log: Logger, sandbox: Sandbox, o: Outcome): Promise<void> {
    const now = this.#now();
    const generation = sandbox.metadata.generation;
    let conditions: Condition[] | undefined = sandbox.status?.conditions;
    for (const c of o.conditions) {
      conditions = setCondition(
        conditions,
        { type: c.type, status: c.ok ? 'True' : 'False', reason: c.reason, message: c.message },
        generation,
        now,
      );
    }
    const clonedFrom = sandbox.status?.clonedFrom ?? sandbox.metadata.annotations?.[Annotations.clonedFrom];
    const status: SandboxStatus = {
      ...sandbox.status,
      phase: o.phase,
      message: o.message,
      observedGeneration: generation,
      conditions,
      resolvedTemplate: `${sandbox.spec.templateRef.kind}/${sandbox.spec.templateRef.name}`,
      forwardedPorts: o.forwardedPorts ?? sandbox.status?.forwardedPorts ?? [],
      ...(o.podName ? { podName: o.podName } : {}),
      ...(clonedFrom ? { clonedFrom } : {}),
    };
    if (JSON.stringify(status) === JSON.stringify(sandbox.status)) return;
    // agentConfigure is written by the AgentConfigurer alone; a pass working from a cache
    // older than its last write must not put an old value back.
    const { agentConfigure: _owned, ...patch } = status;
    if (o.phase !== sandbox.status?.phase) {
      await this.#event(
        log,
        sandbox,
        o.phase === 'Error' ? 'Warning' : 'Normal',
        `Sandbox${o.phase}`,
        o.message,
      );
    }
    await this.#sandboxes.patchStatus(sandbox, patch);
  }

  /** Deletion: what the Sandbox owns goes (no garbage collector is assumed), then the finalizer. */
  async #finalize(log: Logger, sandbox: Sandbox): Promise<number | void> {
    if (!sandbox.metadata.finalizers?.includes(FINALIZER)) return;
    const { namespace, name } = sandbox.metadata as { namespace: string; name: string };
    const labelSelector = `${Labels.sandbox}=${name}`;
    await this.#deletePod(namespace, name);
    for (const s of (await this.#core.listNamespacedService({ namespace, labelSelector })).items)
      await ignoring([404], () => this.#core.deleteNamespacedService({ name: s.metadata!.name!, namespace }));
    for (const i of (await this.#net.listNamespacedIngress({ namespace, labelSelector })).items)
      await ignoring([404], () => this.#net.deleteNamespacedIngress({ name: i.metadata!.name!, namespace }));
    await ignoring([404], () =>
      this.#net.deleteNamespacedNetworkPolicy({ name: `sandbox-${name}`, namespace }),
    );
    await ignoring([404], () =>
      this.#core.deleteNamespacedSecret({ name: sandboxdSecretName(name), namespace }),
    );
    await ignoring([404], () =>
      this.#core.deleteNamespacedPersistentVolumeClaim({ name: workspaceClaimName(name), namespace }),
    );
    // The Sandbox goes only once its Pod has stopped, so nothing of it runs on unseen.
    if (this.#d.pods.get(name, namespace)) return 500;
    await this.#sandboxes.patch(sandbox, {
      metadata: {
        finalizers: (sandbox.metadata.finalizers ?? []).filter((f) => f !== FINALIZER),
        resourceVersion: sandbox.metadata.resourceVersion,
      },
    });
    log.info('sandbox deleted');
  }

  /**
   * A token Secret from before tokens were derived from the key (or from an older key):
   * the Pod goes first, so the one created after it mounts the new token.
   */
  async #retoken(log: Logger, sandbox: Sandbox, token: string): Promise<void> {
    const { namespace, name } = sandbox.metadata as { namespace: string; name: string };
    await this.#deletePod(namespace, name);
    await this.#core.replaceNamespacedSecret({
      name: sandboxdSecretName(name),
      namespace,
      body: tokenSecret(sandbox, token),
    });
    log.info('sandboxd token replaced by the derived one; the Pod restarts with it');
  }

  async #deletePod(namespace: string, name: string): Promise<void> {
    await ignoring([404], () => this.#core.deleteNamespacedPod({ name, namespace }));
  }

  /** Reads an object; creates it when missing; hands it to `update` when it exists. */
  async #ensure<T>(
    read: () => Promise<T>,
    create: () => Promise<unknown>,
    update?: (current: T) => Promise<unknown> | undefined,
  ) {
    let current: T;
    try {
      current = await read();
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
      await ignoring([409], create);
      return;
    }
    await update?.(current);
  }

  async #template(namespace: string, kind: string, name: string): Promise<SandboxTemplateSpec | undefined> {
    try {
      const t = (
        kind === 'SandboxTemplate'
          ? await this.#custom.getNamespacedCustomObject({
              group: GROUP,
              version: VERSION,
              plural: 'sandboxtemplates',
              namespace,
              name,
            })
          : await this.#custom.getClusterCustomObject({
              group: GROUP,
              version: VERSION,
              plural: 'clustersandboxtemplates',
              name,
            })
      ) as SandboxTemplate;
      return t.spec;
    } catch (err) {
      if (isStatus(err, 404)) return undefined;
      throw err;
    }
  }

  async #snapshot(
    namespace: string,
    name: string,
  ): Promise<
    | { spec?: { source?: { persistentVolumeClaimName?: string } }; status?: { readyToUse?: boolean } }
    | undefined
  > {
    try {
      return (await this.#custom.getNamespacedCustomObject({ ...SNAPSHOTS, namespace, name })) as never;
    } catch (err) {
      if (isStatus(err, 404)) return undefined;
      throw err;
    }
  }

  async #event(
    log: Logger,
    sandbox: Sandbox,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): Promise<void> {
    const { namespace, name, uid } = sandbox.metadata as { namespace: string; name: string; uid: string };
    const now = this.#now();
    await this.#core
      .createNamespacedEvent({
        namespace,
        body: {
          metadata: { generateName: `${name}.`, namespace },
          involvedObject: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Sandbox', name, namespace, uid },
          reason,
          message,
          type,
          source: { component: 'svc-operator' },
          reportingComponent: 'svc-operator',
          reportingInstance: 'svc-operator',
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      })
      .catch((err: unknown) => log.warn({ err: (err as Error).message, reason }, 'event not recorded'));
  }
}

/** `Expired` back to False once a resume brought the sandbox back (when it ever expired). */
function resumed(sandbox: Sandbox): Outcome['conditions'] {
  const expired = sandbox.status?.conditions?.some((c) => c.type === EXPIRED && c.status === 'True');
  return expired
    ? [{ type: EXPIRED, ok: false, reason: 'Resumed', message: 'resumed after it expired' }]
    : [];
}

/** Why a Pod "keeps failing", or undefined while it is healthy enough. */
function podFailure(pod: V1Pod, maxRestarts: number): string | undefined {
  if (pod.status?.phase === 'Failed')
    return `the sandbox Pod failed: ${pod.status.message ?? pod.status.reason ?? ''}`.trim();
  for (const c of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
    if (c.restartCount >= maxRestarts) {
      const last = c.lastState?.terminated;
      const why = last ? ` (last exit code ${last.exitCode}${last.reason ? `, ${last.reason}` : ''})` : '';
      return `container ${c.name} keeps failing: restarted ${c.restartCount} times${why}`;
    }
  }
  return undefined;
}
