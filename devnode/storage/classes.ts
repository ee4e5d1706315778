import { CustomObjectsApi, StorageV1Api, type KubeConfig } from '@kubernetes/client-node';
import { ignoring, isStatus } from '../../kube/index.ts';

/** The provisioner and snapshot driver name devnode answers to. */
export const DRIVER = 'devnode.svc.io';
export const STORAGE_CLASS = 'svc-devnode';
export const SNAPSHOT_CLASS = 'svc-devnode';
export const SNAPSHOT_GROUP = 'snapshot.storage.k8s.io';
export const SNAPSHOT_VERSION = 'v1';

/**
 * Creates devnode's default StorageClass and default VolumeSnapshotClass when missing.
 * Returns whether the VolumeSnapshot API exists (the CRDs may not be installed).
 */
export async function ensureClasses(kc: KubeConfig): Promise<{ snapshots: boolean }> {
  const storage = kc.makeApiClient(StorageV1Api);
  await ignoring([409], () =>
    storage.createStorageClass({
      body: {
        metadata: {
          name: STORAGE_CLASS,
          annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
        },
        provisioner: DRIVER,
        reclaimPolicy: 'Delete',
        volumeBindingMode: 'Immediate',
        allowVolumeExpansion: true,
      },
    }),
  );
  const custom = kc.makeApiClient(CustomObjectsApi);
  try {
    await ignoring([409], () =>
      custom.createClusterCustomObject({
        group: SNAPSHOT_GROUP,
        version: SNAPSHOT_VERSION,
        plural: 'volumesnapshotclasses',
        body: {
          apiVersion: `${SNAPSHOT_GROUP}/${SNAPSHOT_VERSION}`,
          kind: 'VolumeSnapshotClass',
          metadata: {
            name: SNAPSHOT_CLASS,
            annotations: { 'snapshot.storage.kubernetes.io/is-default-class': 'true' },
          },
          driver: DRIVER,
          deletionPolicy: 'Delete',
        },
      }),
    );
    return { snapshots: true };
  } catch (err) {
    if (isStatus(err, 404)) return { snapshots: false };
    throw err;
  }
}
