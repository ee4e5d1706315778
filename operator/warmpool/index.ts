// The one door of warm pools: the SandboxWarmPool controller and the claim a Sandbox's
// reconcile makes where it would create its Pod and claim.
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type V1PersistentVolumeClaim,
  type V1Pod,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { GROUP, VERSION, WarmPool, type Policy } from '../../core/index.ts';
import {
  Controller,
  Informer,
  scopesOf,
  ownerByLabel,
  type PolicyStore,
  type Reconcile,
  type SandboxdLocator,
} from '../../kube/index.ts';
import { withPolicyDefaults } from '../manifests/index.ts';
import type { SandboxCaches } from '../sandbox/index.ts';
import type { OperatorSettings } from '../settings.ts';
import { WarmClaimer } from './claim.ts';
import { WarmPoolReconciler } from './controller.ts';
import { RefillHolds } from './hold.ts';
import { WarmPoolMetrics } from './metrics.ts';
import type { PoolCache } from './member.ts';
import { Index, memberIndexes, poolIndexes, templateValue } from '../indexes.ts';

export { WarmClaimer, type Adopted } from './claim.ts';
export { POOL_FINALIZER } from './controller.ts';
export { WarmPoolMetrics } from './metrics.ts';

export interface WarmPoolsOptions {
  kc: KubeConfig;
  logger: Logger;
  settings: OperatorSettings;
  /** The namespaces served (see `sandboxInformers`); every namespace when unset. */
  namespaces?: readonly string[];
  /** The Sandbox controller's shared caches: templates are read (and watched) there. */
  caches: Pick<SandboxCaches, 'templates' | 'clusterTemplates' | 'pods' | 'claims'>;
  /** Governance policies: `defaultRuntimeClass` applies to members as to sandboxes. */
  policies: Pick<PolicyStore<Policy>, 'cached'>;
  locator: SandboxdLocator;
  key: () => Promise<Buffer>;
  registry: Registry;
  wrap?: ((name: string, r: Reconcile) => Reconcile)[];
}

export interface WarmPools {
  claimer: WarmClaimer;
  controller: Controller;
  /** Fills the caches (before the controllers run). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The pools' informers (pools, unclaimed members' Pods and claims), controller and claimer. */
export function warmPools(o: WarmPoolsOptions): WarmPools {
  const custom = o.kc.makeApiClient(CustomObjectsApi);
  const core = o.kc.makeApiClient(CoreV1Api);
  const ns = o.namespaces;
  const base = `/apis/${GROUP}/${VERSION}`;
  const pools = new Informer<KubernetesObject>({
    kc: o.kc,
    logger: o.logger,
    indexes: poolIndexes,
    scopes: scopesOf(
      ns,
      (here) => (here ? `${base}/namespaces/${here}/sandboxwarmpools` : `${base}/sandboxwarmpools`),
      async (here) =>
        (here
          ? await custom.listNamespacedCustomObject({
              group: GROUP,
              version: VERSION,
              namespace: here,
              plural: 'sandboxwarmpools',
            })
          : await custom.listClusterCustomObject({
              group: GROUP,
              version: VERSION,
              plural: 'sandboxwarmpools',
            })) as KubernetesListObject<KubernetesObject>,
    ),
  });
  const labelSelector = WarmPool.poolLabel;
  const memberPods = new Informer<V1Pod>({
    kc: o.kc,
    logger: o.logger,
    labelSelector,
    indexes: memberIndexes,
    scopes: scopesOf(
      ns,
      (here) => (here ? `/api/v1/namespaces/${here}/pods` : '/api/v1/pods'),
      (here) =>
        here
          ? core.listNamespacedPod({ namespace: here, labelSelector })
          : core.listPodForAllNamespaces({ labelSelector }),
    ),
  });
  const memberClaims = new Informer<V1PersistentVolumeClaim>({
    kc: o.kc,
    logger: o.logger,
    labelSelector,
    scopes: scopesOf(
      ns,
      (here) =>
        here ? `/api/v1/namespaces/${here}/persistentvolumeclaims` : '/api/v1/persistentvolumeclaims',
      (here) =>
        here
          ? core.listNamespacedPersistentVolumeClaim({ namespace: here, labelSelector })
          : core.listPersistentVolumeClaimForAllNamespaces({ labelSelector }),
    ),
  });
  const metrics = new WarmPoolMetrics(o.registry);
  const typedPools = pools as unknown as PoolCache;
  // A pool waits while a claim on it is answered (`RefillHolds`); each claim enqueues it after.
  const holds = new RefillHolds((key) => controller.enqueue(key));
  const reconciler = new WarmPoolReconciler({
    kc: o.kc,
    settings: o.settings,
    pools: typedPools,
    memberPods,
    memberClaims,
    templates: o.caches,
    defaults: (template, namespace) => withPolicyDefaults(template, o.policies, namespace),
    key: o.key,
    metrics,
  });
  // A template's change reconciles the pools made from it: their members become stale.
  const poolsOf = (kind: string) => (t: KubernetesObject) =>
    typedPools
      .byIndex(Index.template, templateValue(kind, t.metadata?.namespace, t.metadata?.name))
      .map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
  const controller = new Controller({
    name: 'warmpool',
    informer: pools,
    owns: [
      { informer: memberPods, owner: ownerByLabel(WarmPool.poolLabel) },
      { informer: memberClaims, owner: ownerByLabel(WarmPool.poolLabel) },
    ],
    watches: [
      { informer: o.caches.clusterTemplates, map: poolsOf('ClusterSandboxTemplate') },
      { informer: o.caches.templates, map: poolsOf('SandboxTemplate') },
    ],
    reconcile: (key, log) => {
      const hold = holds.ms(key);
      return hold > 0 ? Promise.resolve(hold) : reconciler.reconcile(key, log);
    },
    maxConcurrent: 4,
    logger: o.logger,
    wrap: o.wrap,
  });
  const claimer = new WarmClaimer({
    kc: o.kc,
    settings: o.settings,
    pools: typedPools,
    memberPods,
    memberClaims,
    owned: { pods: o.caches.pods, claims: o.caches.claims },
    locator: o.locator,
    key: o.key,
    metrics,
    holds,
  });
  return {
    claimer,
    controller,
    start: async () => {
      await Promise.all([memberPods.start(), memberClaims.start()]);
      await pools.start();
    },
    stop: async () => {
      await Promise.all([pools.stop(), memberPods.stop(), memberClaims.stop()]);
      await controller.stop();
    },
  };
}
export { claimWarmMember } from './step.ts';
