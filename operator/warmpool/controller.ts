import {
  CoreV1Api,
  CustomObjectsApi,
  NetworkingV1Api,
  type KubeConfig,
  type V1PersistentVolumeClaim,
  type V1Pod,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  GROUP,
  VERSION,
  WarmPool,
  sandboxdToken,
  type Condition,
  type SandboxTemplate,
  type SandboxTemplateSpec,
  type SandboxWarmPool,
  type SandboxWarmPoolStatus,
} from '../../core/index.ts';
import { mergePatch, setCondition, splitKey, type Informer } from '../../kube/index.ts';
import { Index } from '../indexes.ts';
import type { SandboxCaches } from '../sandbox/index.ts';
import type { OperatorSettings } from '../settings.ts';
import { isReadyMember } from './fit.ts';
import { deleteMember, deletePoolLeftovers, ensurePoolPolicy, poolOwns } from './owned.ts';
import {
  fitOf,
  memberName,
  memberObjects,
  poolNetworkPolicy,
  poolSandboxdPolicy,
  standIn,
  type PoolCache,
} from './member.ts';
import type { WarmPoolMetrics } from './metrics.ts';
import { whyShort } from './short.ts';

/** On a pool: its unclaimed members go before the pool does (no garbage collector is assumed). */
export const POOL_FINALIZER = 'svc.io/warmpool-members';

/**
 * Templates are watched (a change reconciles the pools made from it); this is a slow safety
 * net, and the cadence at which a member stuck unready is looked at again.
 */
const RECHECK_MS = 30_000;

export interface WarmPoolReconcilerDeps {
  kc: KubeConfig;
  settings: OperatorSettings;
  pools: PoolCache;
  memberPods: Informer<V1Pod>;
  memberClaims: Informer<V1PersistentVolumeClaim>;
  /** The template informers (the Sandbox controller's). */
  templates: Pick<SandboxCaches, 'templates' | 'clusterTemplates'>;
  /** The template with the policy's defaults (`withPolicyDefaults`), as sandboxes get it. */
  defaults: (template: SandboxTemplateSpec, namespace: string) => SandboxTemplateSpec;
  key: () => Promise<Buffer>;
  metrics: WarmPoolMetrics;
  now?: () => Date;
}

/**
 * One SandboxWarmPool's reconcile: keep `spec.replicas` unclaimed members, each a complete
 * sandbox (token Secret, workspace claim, Pod) made as a Sandbox of the pool's template,
 * mode and image would be; replace members that failed or were made from an older template
 * (their fit differs); report members and ready members in status (the scale subresource
 * reads `status.replicas`).
 */
export class WarmPoolReconciler {
  readonly #d: WarmPoolReconcilerDeps;
  readonly #core: CoreV1Api;
  readonly #net: NetworkingV1Api;
  readonly #custom: CustomObjectsApi;
  readonly #now: () => Date;

  constructor(deps: WarmPoolReconcilerDeps) {
    this.#d = deps;
    this.#core = deps.kc.makeApiClient(CoreV1Api);
    this.#net = deps.kc.makeApiClient(NetworkingV1Api);
    this.#custom = deps.kc.makeApiClient(CustomObjectsApi);
    this.#now = deps.now ?? (() => new Date());
  }

  reconcile = async (key: string, log: Logger): Promise<number | void> => {
    const { namespace, name } = splitKey(key);
    const pool = this.#d.pools.get(name, namespace);
    if (!pool) {
      this.#d.metrics.ready(namespace, name, undefined);
      return;
    }
    // Its members by label and by owner: a Pod under its label that is not its own is no member.
    const members = this.#d.memberPods.byIndex(Index.pool, key).filter((p) => poolOwns(p, pool));
    if (pool.metadata.deletionTimestamp) return this.#finalize(log, pool, members);
    if (!pool.metadata.finalizers?.includes(POOL_FINALIZER)) {
      await this.#patch(pool, {
        metadata: {
          finalizers: [...(pool.metadata.finalizers ?? []), POOL_FINALIZER],
          resourceVersion: pool.metadata.resourceVersion,
        },
      });
      return;
    }
    const template = this.#template(pool);
    if (!template) {
      const message = `${pool.spec.templateRef.kind} "${pool.spec.templateRef.name}" not found`;
      await this.#writeStatus(pool, members.length, 0, { ok: false, reason: 'TemplateNotFound', message });
      return 5_000;
    }
    const fit = fitOf(standIn(pool, 'member'), template, this.#d.settings);
    const policies = [
      poolNetworkPolicy(pool, template, this.#d.settings),
      poolSandboxdPolicy(pool, template, this.#d.settings),
    ];
    const ensured = await Promise.all(policies.map((p) => ensurePoolPolicy(this.#net, pool, p)));
    const conflict = policies.find((_, i) => !ensured[i]);
    if (conflict) {
      const message = `NetworkPolicy ${conflict.metadata!.name!} exists and is not this pool's: no members are made while it is there`;
      await this.#writeStatus(pool, members.length, 0, { ok: false, reason: 'NameConflict', message });
      return RECHECK_MS;
    }

    // Stale (an older template or other settings) or failed members go; the rest are counted.
    const live: V1Pod[] = [];
    for (const pod of members) {
      if (pod.metadata?.deletionTimestamp) continue;
      const stale = pod.metadata?.annotations?.[WarmPool.fitAnnotation] !== fit;
      const failed = failure(pod, this.#d.settings.maxRestarts);
      if (stale || failed) {
        log.info(
          { member: pod.metadata?.name, reason: stale ? 'stale' : failed },
          'replacing a warm-pool member',
        );
        await deleteMember(this.#core, pool, pod);
      } else live.push(pod);
    }
    const ready = live.filter((p) => isReadyMember(p, this.#d.memberClaims));
    const want = pool.spec.replicas;
    if (live.length < want) {
      const key = await this.#d.key();
      await Promise.all(
        Array.from({ length: want - live.length }, () => this.#createMember(pool, template, fit, key)),
      );
    } else if (live.length > want) {
      // Scaled down: the members least far along go first.
      const extra = [...live].sort((a, b) => Number(ready.includes(a)) - Number(ready.includes(b)));
      for (const pod of extra.slice(0, live.length - want)) await deleteMember(this.#core, pool, pod);
    }
    // Every missing member was created above and every extra one deleted.
    const count = want;
    const readyCount = Math.min(ready.length, want);
    this.#d.metrics.ready(namespace, name, readyCount);
    // A pool that cannot fill says why (a member the scheduler refuses, a container that
    // cannot start), not only how many are ready: the members made just above are not in
    // `live` and have no status yet, so they add nothing here.
    const short = readyCount >= want ? undefined : whyShort(live.filter((p) => !ready.includes(p)));
    await this.#writeStatus(pool, count, readyCount, {
      ok: readyCount >= want,
      reason: readyCount >= want ? 'Full' : (short?.reason ?? 'Filling'),
      message: `${readyCount} of ${want} members ready${short ? `; ${short.message}` : ''}`,
    });
    return RECHECK_MS;
  };

  async #createMember(pool: SandboxWarmPool, template: SandboxTemplateSpec, fit: string, key: Buffer) {
    const namespace = pool.metadata.namespace!;
    const name = memberName(pool.metadata.name!);
    const token = sandboxdToken(key, { namespace, name, uid: standIn(pool, name).metadata.uid! });
    const objects = memberObjects(pool, name, template, this.#d.settings, token, fit);
    await this.#core.createNamespacedSecret({ namespace, body: objects.secret });
    await this.#core.createNamespacedPersistentVolumeClaim({ namespace, body: objects.claim });
    await this.#core.createNamespacedPod({ namespace, body: objects.pod });
  }

  /**
   * Deletion: the unclaimed members go (a claimed one no longer carries the pool's label,
   * so it is never among them), then the pool's NetworkPolicy, then the finalizer.
   */
  async #finalize(log: Logger, pool: SandboxWarmPool, members: V1Pod[]): Promise<number | void> {
    if (!pool.metadata.finalizers?.includes(POOL_FINALIZER)) return;
    const namespace = pool.metadata.namespace!;
    for (const pod of members) await deleteMember(this.#core, pool, pod);
    await deletePoolLeftovers({ core: this.#core, net: this.#net }, pool);
    if (members.length > 0) return 500;
    await this.#patch(pool, {
      metadata: {
        finalizers: (pool.metadata.finalizers ?? []).filter((f) => f !== POOL_FINALIZER),
        resourceVersion: pool.metadata.resourceVersion,
      },
    });
    this.#d.metrics.ready(namespace, pool.metadata.name!, undefined);
    log.info('warm pool deleted');
  }

  async #writeStatus(
    pool: SandboxWarmPool,
    replicas: number,
    readyReplicas: number,
    ready: { ok: boolean; reason: string; message: string },
  ): Promise<void> {
    const generation = pool.metadata.generation;
    const conditions: Condition[] = setCondition(
      pool.status?.conditions,
      { type: 'Ready', status: ready.ok ? 'True' : 'False', reason: ready.reason, message: ready.message },
      generation,
      this.#now(),
    );
    const status: SandboxWarmPoolStatus = {
      replicas,
      readyReplicas,
      selector: `${WarmPool.poolLabel}=${pool.metadata.name!}`,
      observedGeneration: generation,
      conditions,
    };
    if (JSON.stringify(status) === JSON.stringify(pool.status)) return;
    await this.#custom.patchNamespacedCustomObjectStatus({ ...ref(pool), body: { status } }, mergePatch);
  }

  async #patch(pool: SandboxWarmPool, body: object): Promise<void> {
    await this.#custom.patchNamespacedCustomObject({ ...ref(pool), body }, mergePatch);
  }

  #template(pool: SandboxWarmPool): SandboxTemplateSpec | undefined {
    const { kind, name } = pool.spec.templateRef;
    const found = (
      kind === 'SandboxTemplate'
        ? this.#d.templates.templates.get(name, pool.metadata.namespace)
        : this.#d.templates.clusterTemplates.get(name)
    ) as SandboxTemplate | undefined;
    return found && this.#d.defaults(found.spec, pool.metadata.namespace!);
  }
}

const ref = (pool: SandboxWarmPool) => ({
  group: GROUP,
  version: VERSION,
  plural: 'sandboxwarmpools',
  namespace: pool.metadata.namespace!,
  name: pool.metadata.name!,
});

/** Why a member is beyond use: its Pod failed, or a container keeps restarting. */
function failure(pod: V1Pod, maxRestarts: number): string | undefined {
  if (pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded') return `Pod ${pod.status.phase}`;
  const restarts = Math.max(0, ...(pod.status?.containerStatuses ?? []).map((c) => c.restartCount));
  return restarts >= maxRestarts ? `restarted ${restarts} times` : undefined;
}
