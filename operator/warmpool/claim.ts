import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1PersistentVolumeClaim,
  type V1Pod,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  Labels,
  WarmPool,
  isExpired,
  workspaceClaimName,
  type Sandbox,
  type SandboxTemplateSpec,
} from '../../core/index.ts';
import { isStatus, mergePatch, type Informer, type SandboxdLocator } from '../../kube/index.ts';
import { Index } from '../indexes.ts';
import type { OperatorSettings } from '../settings.ts';
import { isReadyMember, matches, ownerOf, rfc3339, servesRuntimeClass, shuffle, withMember } from './fit.ts';
import { moveToSandbox } from './bookkeeping.ts';
import { poolOwns } from './owned.ts';
import { handOver } from './handover.ts';
import type { RefillHolds } from './hold.ts';
import { fitOf, type PoolCache } from './member.ts';
import type { WarmPoolMetrics } from './metrics.ts';

/**
 * A member a pass has just claimed: its Pod as the claim's write returned it, and its
 * workspace claim. The steps after the claim use them until the Sandbox controller's caches
 * (label `svc.io/sandbox`) hold them: the watch brings them a few milliseconds later, and
 * without them the pass would try to create both (409) and end short of `Running`, so the
 * sandbox would be `Running` only a second pass and status write later.
 */
export interface Adopted {
  pod: V1Pod;
  claim?: V1PersistentVolumeClaim;
}

export interface WarmClaimerDeps {
  kc: KubeConfig;
  settings: OperatorSettings;
  pools: PoolCache;
  /** Unclaimed members' Pods and claims (label `svc.io/warm-pool`). */
  memberPods: Informer<V1Pod>;
  memberClaims: Informer<V1PersistentVolumeClaim>;
  /** The Sandbox controller's Pods and claims (label `svc.io/sandbox`). */
  owned: { pods: Informer<V1Pod>; claims: Informer<V1PersistentVolumeClaim> };
  locator: SandboxdLocator;
  key: () => Promise<Buffer>;
  metrics: WarmPoolMetrics;
  /** Claims under way hold their pool's refill until their status is written. */
  holds: RefillHolds;
  now?: () => Date;
}

/**
 * Claiming: a new Sandbox whose namespace, template, mode and image match a pool — and
 * whose Pod and claim would be exactly a member's (`fitOf`) — takes over a ready member's
 * Pod, claim and token Secret instead of creating its own. The claim commits with an
 * optimistic write of the member's Pod (its resourceVersion): of two sandboxes after one
 * member, one write wins and the other tries the next member, or starts cold.
 */
export class WarmClaimer {
  readonly #d: WarmClaimerDeps;
  readonly #api: { core: CoreV1Api; custom: CustomObjectsApi };
  readonly #now: () => Date;
  /**
   * What this replica decided for a sandbox (by uid): the member it claimed, or '' for a
   * cold start; kept until the cached Sandbox shows it, so a pass on a stale cache never
   * decides again (a second decision could give one sandbox two Pods).
   */
  readonly #given = new Map<string, string>();
  /**
   * Claims whose hand-over or bookkeeping failed, by sandbox uid: the member's Pod as taken.
   * The next pass finishes them from here (its cache may not show the take yet, and must
   * not decide again).
   */
  readonly #unfinished = new Map<string, V1Pod>();

  constructor(deps: WarmClaimerDeps) {
    this.#d = deps;
    this.#api = { core: deps.kc.makeApiClient(CoreV1Api), custom: deps.kc.makeApiClient(CustomObjectsApi) };
    this.#now = deps.now ?? (() => new Date());
  }

  /**
   * The sandbox as the rest of the reconcile should see it: with the member it claimed (now
   * or earlier) in its annotations, or unchanged when it starts (or started) cold. A new
   * claim returns once the member is the sandbox's and its sandboxd has the sandbox's token,
   * which is all `Running` needs; the rest of its bookkeeping and the pool's refill are
   * `after`, for once the pass has written its status.
   */
  async claim(
    log: Logger,
    sandbox: Sandbox,
    template: SandboxTemplateSpec,
  ): Promise<{ sandbox: Sandbox; after?: () => Promise<unknown>; adopted?: Adopted }> {
    const { namespace, name, uid } = sandbox.metadata as { namespace: string; name: string; uid: string };
    const unfinished = this.#unfinished.get(uid);
    if (unfinished) {
      await this.#finish(log, sandbox, unfinished);
      this.#unfinished.delete(uid);
      const member = unfinished.metadata!.name!;
      const claim = this.#d.memberClaims.get(workspaceClaimName(member), namespace);
      return { sandbox: withMember(sandbox, member), adopted: { pod: unfinished, claim } };
    }
    if (sandbox.metadata.annotations?.[WarmPool.memberAnnotation]) {
      this.#given.delete(uid);
      return { sandbox };
    }
    const given = this.#given.get(uid);
    if (given) return { sandbox: withMember(sandbox, given) };
    if (given === '' && !sandbox.status?.podName) return { sandbox };
    this.#given.delete(uid);

    // A claim this replica made is in `#given` until the cache shows its annotation. One made
    // by a replica that failed over before annotating shows in the caches (listed afresh by
    // this leader) as a Pod under the sandbox's label: finish it, whether or not its status
    // was written (the annotation is written after the status). A Pod or claim of its own
    // means it started cold. Its own by label and by owner: its controller reference is its uid.
    const mine = (o: V1Pod | V1PersistentVolumeClaim) =>
      o.metadata?.labels?.[Labels.sandbox] === name &&
      !!o.metadata.ownerReferences?.some((r) => r.controller && r.uid === uid);
    const ownPods = this.#d.owned.pods.list(namespace).filter(mine);
    const adopted = ownPods.find((p) => p.metadata?.annotations?.[WarmPool.claimedAtAnnotation]);
    if (adopted) {
      await this.#finish(log, sandbox, adopted);
      return { sandbox: withMember(sandbox, adopted.metadata!.name!) };
    }
    if (!this.mayTake(sandbox)) return { sandbox };
    if (ownPods.length > 0 || this.#d.owned.claims.list(namespace).some(mine)) return { sandbox };
    const pools = this.#d.pools.list(namespace).filter((p) => matches(p, sandbox));

    const fit = fitOf(sandbox, template, this.#d.settings);
    const candidates = pools.flatMap((pool) =>
      shuffle(
        this.#d.memberPods
          .byIndex(Index.pool, `${namespace}/${pool.metadata.name}`)
          .filter((p) => poolOwns(p, pool))
          .filter((p) => p.metadata?.annotations?.[WarmPool.fitAnnotation] === fit)
          .filter((p) => servesRuntimeClass(p, sandbox.spec.runtimeClassName ?? template.runtimeClassName))
          .filter((p) => isReadyMember(p, this.#d.memberClaims)),
      ).map((pod) => ({ pool, pod })),
    );
    for (const { pool, pod } of candidates) {
      // Held from before the take: the take's own watch event reaches the pool first.
      const release = this.#d.holds.hold(`${namespace}/${pool.metadata.name!}`, uid);
      const taken = await this.#take(sandbox, pod, pool.metadata.name!).catch((err: unknown) => {
        release();
        throw err;
      });
      if (!taken) {
        release();
        continue;
      }
      const member = pod.metadata!.name!;
      this.#d.metrics.claim(namespace, pool.metadata.name!, 'hit');
      this.#given.set(uid, member);
      const token = await this.#d.locator.token(namespace, name, uid);
      const after = async () => {
        try {
          await moveToSandbox(this.#api, sandbox, taken, token);
        } catch (err) {
          this.#unfinished.set(uid, taken);
          throw err;
        } finally {
          release();
        }
      };
      try {
        await handOver(this.#d, log, sandbox, taken, token, pool);
      } catch (err) {
        this.#unfinished.set(uid, taken);
        await after().catch(() => undefined);
        throw err;
      }
      log.info({ member, pool: pool.metadata.name }, 'claimed a warm-pool member');
      const claim = this.#d.memberClaims.get(workspaceClaimName(member), namespace);
      return { sandbox: withMember(sandbox, member), after, adopted: { pod: taken, claim } };
    }
    this.#d.metrics.claim(namespace, pools[0]!.metadata.name!, 'miss');
    this.#given.set(uid, '');
    return { sandbox };
  }

  /**
   * Whether a pass may take a member: none taken (or decided on) before, not started cold in
   * an earlier pass (its status names a Pod), not stopped, cloned or expired; a pool fits.
   */
  mayTake(sandbox: Sandbox): boolean {
    if (sandbox.metadata.annotations?.[WarmPool.memberAnnotation]) return false;
    if (this.#given.has(sandbox.metadata.uid!)) return false;
    if (sandbox.status?.podName || sandbox.spec.stopped || sandbox.spec.cloneFromSnapshot) return false;
    if (isExpired(sandbox)) return false;
    return this.#d.pools.list(sandbox.metadata.namespace).some((p) => matches(p, sandbox));
  }

  /**
   * The commit: the member's Pod becomes the sandbox's, if nobody changed it since it was
   * read. Resolves with the Pod as written, or undefined when another claim got there first.
   */
  async #take(sandbox: Sandbox, pod: V1Pod, pool: string): Promise<V1Pod | undefined> {
    const { namespace, name } = sandbox.metadata as { namespace: string; name: string };
    try {
      return await this.#api.core.patchNamespacedPod(
        {
          name: pod.metadata!.name!,
          namespace,
          body: {
            metadata: {
              resourceVersion: pod.metadata!.resourceVersion,
              labels: { [WarmPool.poolLabel]: null, [Labels.sandbox]: name },
              annotations: {
                [WarmPool.claimedAtAnnotation]: rfc3339(this.#now()),
                [WarmPool.claimedFromAnnotation]: pool,
              },
              ownerReferences: [ownerOf(sandbox)],
            },
          },
        },
        mergePatch,
      );
    } catch (err) {
      if (isStatus(err, 409) || isStatus(err, 404)) return undefined;
      throw err;
    }
  }

  /**
   * A claim taken earlier, finished now (both halves idempotent): the member's sandboxd given
   * the sandbox's token (`handOver`, its pool named on the Pod) and the bookkeeping
   * (`moveToSandbox`).
   */
  async #finish(log: Logger, sandbox: Sandbox, pod: V1Pod): Promise<void> {
    const { namespace, name, uid } = sandbox.metadata as { namespace: string; name: string; uid: string };
    const token = await this.#d.locator.token(namespace, name, uid);
    await Promise.all([
      handOver(this.#d, log, sandbox, pod, token),
      moveToSandbox(this.#api, sandbox, pod, token),
    ]);
  }
}
