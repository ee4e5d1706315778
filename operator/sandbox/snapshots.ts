import { CustomObjectsApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Informer, isStatus, scopesOf } from '../../kube/index.ts';

const SNAPSHOTS = { group: 'snapshot.storage.k8s.io', version: 'v1', plural: 'volumesnapshots' };

/** The parts of a VolumeSnapshot a clone reads. */
export interface VolumeSnapshot extends KubernetesObject {
  spec?: { source?: { persistentVolumeClaimName?: string } };
  status?: { readyToUse?: boolean };
}

/**
 * VolumeSnapshots, for clones. Their CRD is optional in a cluster: when it is installed
 * they are watched (`informer`, and a snapshot that becomes ready reconciles its clones at
 * once); when it is not, each read is a GET and the clone step polls.
 */
export interface Snapshots {
  informer?: Informer<VolumeSnapshot>;
  get(namespace: string, name: string): Promise<VolumeSnapshot | undefined>;
  /** Deletes the snapshot; one already gone is no error. */
  delete(namespace: string, name: string): Promise<void>;
}

/** Watches VolumeSnapshots when the apiserver serves them (one list tells), else reads by GET. */
export async function snapshotSource(
  kc: KubeConfig,
  logger: Logger,
  namespaces?: readonly string[],
): Promise<Snapshots> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const remove = async (ns: string, name: string) => {
    try {
      await custom.deleteNamespacedCustomObject({ ...SNAPSHOTS, namespace: ns, name });
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
    }
  };
  const list = async (namespace?: string) =>
    (namespace
      ? await custom.listNamespacedCustomObject({ ...SNAPSHOTS, namespace })
      : await custom.listClusterCustomObject(SNAPSHOTS)) as { items: KubernetesObject[] };
  // One list tells whether the CRD is served (serving no namespace at all: nothing to watch).
  const served =
    namespaces?.length !== 0 &&
    (await list(namespaces?.[0]).then(
      () => true,
      (err: unknown) => {
        if (isStatus(err, 404)) return false;
        throw err;
      },
    ));
  if (!served) {
    logger.info('no VolumeSnapshot CRD: clones poll their snapshot');
    return {
      get: async (ns, name) => {
        try {
          return (await custom.getNamespacedCustomObject({
            ...SNAPSHOTS,
            namespace: ns,
            name,
          })) as VolumeSnapshot;
        } catch (err) {
          if (isStatus(err, 404)) return undefined;
          throw err;
        }
      },
      delete: remove,
    };
  }
  const base = `/apis/${SNAPSHOTS.group}/${SNAPSHOTS.version}`;
  const informer = new Informer<VolumeSnapshot>({
    kc,
    logger,
    scopes: scopesOf(
      namespaces,
      (ns) => (ns ? `${base}/namespaces/${ns}/volumesnapshots` : `${base}/volumesnapshots`),
      list,
    ),
  });
  return {
    informer,
    get: (ns, name) => Promise.resolve(informer.get(name, ns)),
    delete: remove,
  };
}
