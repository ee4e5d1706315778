// The one door of the operator: `startOperator` runs the Sandbox controller.
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
import { GROUP, Labels, Policy, VERSION, type Sandbox } from '../core/index.ts';
import {
  Informer,
  LeaderElector,
  PolicyStore,
  SandboxdKeySecret,
  SandboxdLocator,
  Controller,
  keyOf,
  ownerByLabel,
  type Reconcile,
} from '../kube/index.ts';
import { endSpan, type Tracer } from '../telemetry/index.ts';
import { OperatorMetrics } from './metrics.ts';
import { SandboxReconciler } from './reconciler.ts';
import type { OperatorSettings } from './settings.ts';

export type { OperatorSettings } from './settings.ts';

export { FINALIZER } from './reconciler.ts';
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
  /** Watch one namespace only; every namespace when unset. */
  namespace?: string;
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
 * Waits to lead, then fills the caches and reconciles every Sandbox, and again on every
 * change of a Sandbox or of a Pod or claim it owns.
 */
export async function startOperator(o: OperatorOptions): Promise<RunningOperator> {
  const custom = o.kc.makeApiClient(CustomObjectsApi);
  const core = o.kc.makeApiClient(CoreV1Api);
  const ns = o.namespace;
  const metrics = o.metrics ?? new OperatorMetrics();
  const elector = new LeaderElector({
    kc: o.kc,
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
  // Every sandboxd token is derived from this key, so it exists before the first reconcile.
  const { key, created } = await new SandboxdKeySecret({ kc: o.kc, namespace: o.leaseNamespace })
    .ensure()
    .catch(async (err: unknown) => {
      await stop();
      throw err;
    });
  if (created) o.logger.info({ namespace: o.leaseNamespace }, 'created the sandboxd key Secret');

  const base = `/apis/${GROUP}/${VERSION}`;
  const sandboxes = new Informer<KubernetesObject>({
    kc: o.kc,
    logger: o.logger,
    path: ns ? `${base}/namespaces/${ns}/sandboxes` : `${base}/sandboxes`,
    list: async () =>
      (ns
        ? await custom.listNamespacedCustomObject({
            group: GROUP,
            version: VERSION,
            namespace: ns,
            plural: 'sandboxes',
          })
        : await custom.listClusterCustomObject({
            group: GROUP,
            version: VERSION,
            plural: 'sandboxes',
          })) as KubernetesListObject<KubernetesObject>,
  });
  const labelSelector = Labels.sandbox;
  const pods = new Informer<V1Pod>({
    kc: o.kc,
    logger: o.logger,
    labelSelector,
    path: ns ? `/api/v1/namespaces/${ns}/pods` : '/api/v1/pods',
    list: () =>
      ns
        ? core.listNamespacedPod({ namespace: ns, labelSelector })
        : core.listPodForAllNamespaces({ labelSelector }),
  });
  const claims = new Informer<V1PersistentVolumeClaim>({
    kc: o.kc,
    logger: o.logger,
    labelSelector,
    path: ns ? `/api/v1/namespaces/${ns}/persistentvolumeclaims` : '/api/v1/persistentvolumeclaims',
    list: () =>
      ns
        ? core.listNamespacedPersistentVolumeClaim({ namespace: ns, labelSelector })
        : core.listPersistentVolumeClaimForAllNamespaces({ labelSelector }),
  });
  // Watched, so a policy change reaches the next reconcile at once (see onChange below).
  const policies = new PolicyStore(o.kc, o.leaseNamespace, (raw) => Policy.parse(raw));
  const reconciler = new SandboxReconciler({
    kc: o.kc,
    settings: o.settings,
    sandboxes,
    pods,
    claims,
    policies,
    locator: new SandboxdLocator({ kc: o.kc, key: () => Promise.resolve(key) }),
  });
  const wrap = [
    (name: string, r: Reconcile) => metrics.instrument(name, r),
    ...(o.tracer ? [(name: string, r: Reconcile) => traced(o.tracer!, name, r)] : []),
  ];
  // One controller per primary kind, over the informers above (shared, each listed once).
  const controllers = [
    new Controller({
      name: 'sandbox',
      informer: sandboxes,
      owns: [
        { informer: pods, owner: ownerByLabel(Labels.sandbox) },
        { informer: claims, owner: ownerByLabel(Labels.sandbox) },
      ],
      reconcile: reconciler.reconcile,
      maxConcurrent: SANDBOX_MAX_CONCURRENT,
      logger: o.logger,
      wrap,
    }),
  ];
  metrics.observe({
    controllers: () => controllers,
    phases: () => sandboxes.list().map((s) => (s as Sandbox).status?.phase),
  });
  const sandboxController = controllers[0]!;
  // A changed policy may change the invoke cap of every agent sandbox: each is reconciled again.
  policies.onChange(() => {
    for (const s of sandboxes.list())
      if ((s as Sandbox).spec?.mode === 'agent') sandboxController.enqueue(keyOf(s));
  });
  stopAll.push(
    () => sandboxes.stop(),
    () => pods.stop(),
    () => claims.stop(),
    () => policies.stop(),
    ...controllers.map((c) => () => c.stop()),
  );
  await Promise.all([pods.start(), claims.start(), policies.start(o.logger)]);
  await sandboxes.start();
  o.logger.info({ namespace: ns ?? '(all)' }, 'operator started');
  return { stop, metrics };
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
