// The one door of devnode: `startDevnode` plays node, scheduler, kubelet, kube-proxy,
// provisioner and snapshotter for one machine.
import { mkdir } from 'node:fs/promises';
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubernetesListObject,
  type KubernetesObject,
  type V1PersistentVolumeClaim,
  type V1Pod,
  type V1Service,
} from '@kubernetes/client-node';
import { Informer, WorkQueue, keyOf } from '../kube/index.ts';
import { registerNode } from './node/node.ts';
import { layout, type DevnodeOptions } from './options.ts';
import { PodRuntime, killLeftovers } from './pods/index.ts';
import { ServiceProxy } from './services/proxy.ts';
import { SNAPSHOT_GROUP, SNAPSHOT_VERSION, ensureClasses } from './storage/classes.ts';
import { Clones } from './storage/clones.ts';
import { unmountUnder } from './storage/mounts.ts';
import { Provisioner } from './storage/provisioner.ts';
import { SnapshotData } from './storage/retention.ts';
import { Snapshotter } from './storage/snapshotter.ts';

export type { DevnodeOptions } from './options.ts';
export { bwrapArgs } from './pods/index.ts';
export { sandboxdLauncher } from './launcher.ts';
export { mountsUnder, unmountUnder } from './storage/mounts.ts';

export interface RunningDevnode {
  stop(): Promise<void>;
}

export async function startDevnode(o: DevnodeOptions): Promise<RunningDevnode> {
  const { kc, logger, namespace: ns } = o;
  const paths = layout(o.dataDir);
  await mkdir(o.dataDir, { recursive: true });
  await cleanUpAfterCrash(o.dataDir, logger);
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const node = await registerNode({ kc, name: o.nodeName, logger });
  const { snapshots: withSnapshots } = await ensureClasses(kc);

  const path = (plural: string) => (ns ? `/api/v1/namespaces/${ns}/${plural}` : `/api/v1/${plural}`);
  const pods = new Informer<V1Pod>({
    kc,
    logger,
    path: path('pods'),
    list: () => (ns ? core.listNamespacedPod({ namespace: ns }) : core.listPodForAllNamespaces()),
  });
  const claims = new Informer<V1PersistentVolumeClaim>({
    kc,
    logger,
    path: path('persistentvolumeclaims'),
    list: () =>
      ns
        ? core.listNamespacedPersistentVolumeClaim({ namespace: ns })
        : core.listPersistentVolumeClaimForAllNamespaces(),
  });
  const services = new Informer<V1Service>({
    kc,
    logger,
    path: path('services'),
    list: () => (ns ? core.listNamespacedService({ namespace: ns }) : core.listServiceForAllNamespaces()),
  });

  const runtime = new PodRuntime({
    kc,
    logger,
    layout: paths,
    nodeName: o.nodeName,
    pods,
    claims,
    sandboxdCommand: o.sandboxdCommand,
  });
  const clones = new Clones({ logger, layout: paths, dataDir: o.dataDir });
  const snapshotData = new SnapshotData({ logger, layout: paths, clones });
  const provisioner = new Provisioner({
    kc,
    logger,
    layout: paths,
    claims,
    clones,
    snapshotData,
    claimInUse: (n, c) => runtime.claimInUse(n, c),
    enforceVolumeSize: o.enforceVolumeSize ?? false,
  });
  const proxy = new ServiceProxy({ kc, logger, services, sandboxes: () => runtime.sandboxes() });
  // devnode stands in for a kubelet, a provisioner and a proxy, which do not queue their
  // objects behind each other and retry within seconds: no cap, and a short longest backoff.
  const queueOptions = { maxConcurrent: Infinity, retry: { maxMs: 10_000 } };
  const podQueue = new WorkQueue(runtime.reconcile, logger, queueOptions);
  const claimQueue = new WorkQueue(provisioner.reconcile, logger, queueOptions);
  const serviceQueue = new WorkQueue(proxy.reconcile, logger, queueOptions);
  pods.onChange((p) => podQueue.add(keyOf(p)));
  claims.onChange((c) => {
    claimQueue.add(keyOf(c));
    // A claim that binds releases the Pods waiting for it.
    for (const p of pods.list(c.metadata?.namespace)) if (!p.spec?.nodeName) podQueue.add(keyOf(p));
  });
  services.onChange((s) => serviceQueue.add(keyOf(s)));
  const informers: Informer<KubernetesObject>[] = [pods, claims, services] as never;
  const queues = [podQueue, claimQueue, serviceQueue];

  if (withSnapshots) {
    const snapshots = new Informer<KubernetesObject>({
      kc,
      logger,
      path: ns
        ? `/apis/${SNAPSHOT_GROUP}/${SNAPSHOT_VERSION}/namespaces/${ns}/volumesnapshots`
        : `/apis/${SNAPSHOT_GROUP}/${SNAPSHOT_VERSION}/volumesnapshots`,
      list: async () =>
        (ns
          ? await custom.listNamespacedCustomObject({
              group: SNAPSHOT_GROUP,
              version: SNAPSHOT_VERSION,
              namespace: ns,
              plural: 'volumesnapshots',
            })
          : await custom.listClusterCustomObject({
              group: SNAPSHOT_GROUP,
              version: SNAPSHOT_VERSION,
              plural: 'volumesnapshots',
            })) as KubernetesListObject<KubernetesObject>,
    });
    const snapshotter = new Snapshotter({ kc, logger, layout: paths, snapshots, clones, snapshotData });
    const snapshotQueue = new WorkQueue(snapshotter.reconcile, logger, queueOptions);
    snapshots.onChange((s) => snapshotQueue.add(keyOf(s)));
    informers.push(snapshots);
    queues.push(snapshotQueue);
  }
  // Clone mounts live as long as devnode runs; its state on disk outlives restarts and reboots.
  await clones.mountAll();
  await snapshotData.collectOrphans();
  await Promise.all(informers.map((i) => i.start()));
  logger.info({ node: o.nodeName, namespace: ns ?? '(all)', snapshots: withSnapshots }, 'devnode started');

  return {
    async stop() {
      await Promise.all(queues.map((q) => q.stop()));
      await Promise.all(informers.map((i) => i.stop()));
      proxy.stop();
      await runtime.stop();
      await clones.unmountAll();
      // Nothing of this devnode stays mounted, whatever a Pod's stop could not undo.
      await unmountUnder(o.dataDir).catch((err: unknown) =>
        logger.warn({ err: (err as Error).message }, 'mounts left under the data folder'),
      );
      await node.stop();
    },
  };
}

/**
 * A devnode that was killed outright left its Pods' processes (normally none: they die
 * with it) and its mounts (always: Pod roots and clones) behind. Both go before anything
 * starts, so every Pod and clone is started and mounted afresh, exactly once.
 */
async function cleanUpAfterCrash(dataDir: string, logger: DevnodeOptions['logger']): Promise<void> {
  const killed = await killLeftovers(dataDir);
  if (killed.length > 0) logger.warn({ pids: killed }, 'killed processes left by a previous devnode');
  const unmounted = await unmountUnder(dataDir);
  if (unmounted.length > 0)
    logger.warn({ mounts: unmounted }, 'unmounted what a previous devnode left mounted');
}
