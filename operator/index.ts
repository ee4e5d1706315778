// The one door of the operator: `startOperator` runs its controllers over shared informers.
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Labels, Policy, type Sandbox } from '../core/index.ts';
import {
  Controller,
  LeaderElector,
  PolicyStore,
  SandboxdKeySecret,
  SandboxdLocator,
  countingKubeConfig,
  ownerByLabel,
  keyOf,
  type Reconcile,
} from '../kube/index.ts';
import { endSpan, type Tracer } from '../telemetry/index.ts';
import { Index, templateValue } from './indexes.ts';
import { informersOf, sandboxInformers } from './informers.ts';
import { OperatorMetrics } from './metrics.ts';
import { sampleUsage, templateLabel } from './usage-metrics.ts';
import { SandboxReconciler, sandboxOfEvent, type SandboxCaches } from './sandbox/index.ts';
import { warmPools } from './warmpool/index.ts';
import type { OperatorSettings } from './settings.ts';

export type { EgressSettings, OperatorSettings } from './settings.ts';
export { DEFAULT_EGRESS } from './manifests/index.ts';

export { OperatorMetrics } from './metrics.ts';

/**
 * Sandbox reconciles running at once: enough to keep a burst of creations moving, few
 * enough that a thousand at once do not flood the apiserver.
 */
const SANDBOX_MAX_CONCURRENT = 16;

export interface OperatorOptions {
  kc: KubeConfig;
  logger: Logger;
  settings: OperatorSettings;
  /**
   * The namespaces served: only their Sandboxes, pools and objects are watched (the chart
   * grants Pods, claims and Secrets there only). Every namespace when unset.
   */
  namespace?: string | readonly string[];
  /** The service's namespace: the leader-election Lease and `svc-governance` live there. */
  leaseNamespace: string;
  /** This replica's name in the Lease (the Pod name in a cluster). */
  identity: string;
  leaseDurationSeconds?: number;
  /** Called when leadership is lost: the process should exit, as controller-runtime's managers do. */
  onLostLeadership?: () => void;
  /** Each reconcile becomes a `svc.reconcile` span; none without a tracer. */
  tracer?: Tracer;
  /**
   * Metrics made (and served) before this call, so a replica waiting for the Lease answers
   * `/metrics` too; a registry of the operator's own when unset.
   */
  metrics?: OperatorMetrics;
}

export interface RunningOperator {
  /** The operator's Prometheus registry (`svc_reconcile_*`, queue depth, sandboxes by phase). */
  metrics: OperatorMetrics;
  stop(): Promise<void>;
}

/**
 * Waits to lead, then fills the shared caches and runs the controllers: each reconciles its
 * objects on every change of them, of what they own, or of what they read.
 */
export async function startOperator(o: OperatorOptions): Promise<RunningOperator> {
  const metrics = o.metrics ?? new OperatorMetrics();
  // Every request the operator makes is counted (svc_kube_requests_total{component="operator"}).
  const kc = countingKubeConfig(o.kc, (verb, resource) => metrics.kubeRequest('operator', verb, resource));
  const elector = new LeaderElector({
    kc,
    logger: o.logger,
    namespace: o.leaseNamespace,
    name: 'svc-operator',
    identity: o.identity,
    leaseDurationSeconds: o.leaseDurationSeconds,
  });
  let stopping = false;
  const stopAll: (() => Promise<void>)[] = [];
  const stop = async () => {
    stopping = true;
    elector.stop();
    metrics.setLeader(false);
    for (const s of stopAll.reverse()) await s();
    metrics.observe(undefined);
    // Only once no reconcile runs any more, so leaders never overlap.
    await elector.release();
  };
  await elector.run(() => {
    if (!stopping) void stop().then(() => o.onLostLeadership?.());
  });
  metrics.setLeader(true);
  const fail = async (err: unknown): Promise<never> => {
    await stop();
    throw err;
  };
  // Every sandboxd token is derived from this key, so it exists before the first reconcile.
  const { key, created } = await new SandboxdKeySecret({ kc, namespace: o.leaseNamespace })
    .ensure()
    .catch(fail);
  if (created) o.logger.info({ namespace: o.leaseNamespace }, 'created the sandboxd key Secret');

  const namespaces = typeof o.namespace === 'string' ? [o.namespace] : o.namespace;
  const caches = await sandboxInformers(kc, o.logger, namespaces).catch(fail);
  // Watched, so a policy change reaches the agent sandboxes at once (see `watches` below).
  const policies = new PolicyStore(kc, o.leaseNamespace, (raw) => Policy.parse(raw));
  const locator = new SandboxdLocator({
    kc,
    key: () => Promise.resolve(key),
    devnode: o.settings.devnode ?? false,
  });
  const wrap = [
    (name: string, r: Reconcile) => metrics.instrument(name, r),
    ...(o.tracer ? [(name: string, r: Reconcile) => traced(o.tracer!, name, r)] : []),
  ];
  const warm = warmPools({
    kc,
    logger: o.logger,
    settings: o.settings,
    namespaces,
    caches,
    policies,
    locator,
    key: () => Promise.resolve(key),
    registry: metrics.registry,
    wrap,
  });
  const reconciler = new SandboxReconciler({
    kc,
    settings: o.settings,
    caches,
    policies,
    locator,
    warm: warm.claimer,
    wake: (k) => controllers[0]?.enqueue(k),
    logger: o.logger,
  });
  const bySandbox = ownerByLabel(Labels.sandbox);
  // One controller per primary kind, over the informers above (shared, each listed once).
  const controllers: Controller[] = [
    new Controller({
      name: 'sandbox',
      informer: caches.sandboxes,
      owns: [
        caches.pods,
        caches.claims,
        caches.secrets,
        caches.services,
        caches.ingresses,
        caches.networkPolicies,
      ].map((informer) => ({ informer: informer as never, owner: bySandbox })),
      watches: [
        { informer: caches.clusterTemplates, map: (t) => usersOf(caches, 'ClusterSandboxTemplate', t) },
        { informer: caches.templates, map: (t) => usersOf(caches, 'SandboxTemplate', t) },
        { informer: caches.evictions as never, map: (e) => sandboxOfEvent(caches, e) },
        ...(caches.snapshots.informer
          ? [{ informer: caches.snapshots.informer, map: (s: KubernetesObject) => clonesOf(caches, s) }]
          : []),
      ],
      reconcile: reconciler.reconcile,
      maxConcurrent: SANDBOX_MAX_CONCURRENT,
      logger: o.logger,
      wrap,
    }),
    warm.controller,
  ];
  metrics.observe({
    controllers: () => controllers,
    phases: () => caches.sandboxes.list().map((s) => (s as Sandbox).status?.phase),
    templates: () =>
      caches.sandboxes.list().map((s) => ({
        phase: (s as Sandbox).status?.phase,
        template: templateLabel(s as Sandbox),
      })),
  });
  stopAll.push(sampleUsage({ caches, locator, metrics, logger: o.logger }));
  const sandboxController = controllers[0]!;
  // A changed policy may change the invoke cap of every agent sandbox: each is reconciled again.
  policies.onChange(() => {
    for (const s of caches.sandboxes.list())
      if ((s as Sandbox).spec?.mode === 'agent') sandboxController.enqueue(keyOf(s));
  });
  const informers = informersOf(caches);
  stopAll.push(
    ...informers.map((i) => () => i.stop()),
    () => policies.stop(),
    () => warm.stop(),
    ...controllers.map((c) => () => c.stop()),
  );
  // The primary kind last, so its first reconciles find what they own already cached.
  await Promise.all([
    ...informers.filter((i) => i !== caches.sandboxes).map((i) => i.start()),
    policies.start(o.logger),
    warm.start(),
  ]).catch(fail);
  await caches.sandboxes.start().catch(fail);
  o.logger.info({ namespaces: namespaces ?? '(all)' }, 'operator started');
  return { stop, metrics };
}

/** The sandboxes that name the template `t` of `kind`. */
function usersOf(caches: SandboxCaches, kind: string, t: KubernetesObject): string[] {
  return caches.sandboxes
    .byIndex(Index.template, templateValue(kind, t.metadata?.namespace, t.metadata?.name))
    .map(keyOf);
}

/** The sandboxes cloned from the VolumeSnapshot `s`. */
function clonesOf(caches: SandboxCaches, s: KubernetesObject): string[] {
  return caches.sandboxes.byIndex(Index.snapshot, `${s.metadata?.namespace}/${s.metadata?.name}`).map(keyOf);
}

/** `reconcile` in a `svc.reconcile` span whose `outcome` is `ok`, `requeue` or `error`. */
function traced(tracer: Tracer, controller: string, reconcile: Reconcile): Reconcile {
  return async (key, log) => {
    const [namespace = '', name = ''] = key.split('/', 2);
    const span = tracer.startSpan('svc.reconcile', { attributes: { controller, namespace, name } });
    try {
      const after = await reconcile(key, log);
      endSpan(span, { outcome: typeof after === 'number' ? 'requeue' : 'ok' });
      return after;
    } catch (err) {
      endSpan(span, { outcome: 'error' }, err);
      throw err;
    }
  };
}
