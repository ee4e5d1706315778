import { eventually } from '../../stack/index.ts';
import type { TestNamespace } from './kube.ts';

export interface VolumeSnapshotObject {
  status?: { readyToUse?: boolean; restoreSize?: string; boundVolumeSnapshotContentName?: string };
}

const ref = (ns: TestNamespace) => ({
  group: 'snapshot.storage.k8s.io',
  version: 'v1',
  namespace: ns.name,
  plural: 'volumesnapshots',
});

/** Creates a VolumeSnapshot of `claim` and waits until it is readyToUse; returns it. */
export async function snapshotClaim(
  ns: TestNamespace,
  name: string,
  claim: string,
): Promise<VolumeSnapshotObject> {
  await ns.custom.createNamespacedCustomObject({
    ...ref(ns),
    body: {
      apiVersion: 'snapshot.storage.k8s.io/v1',
      kind: 'VolumeSnapshot',
      metadata: { name },
      spec: { source: { persistentVolumeClaimName: claim } },
    },
  });
  let snap: VolumeSnapshotObject = {};
  await eventually(
    async () => {
      snap = await readSnapshot(ns, name);
      return snap.status?.readyToUse === true;
    },
    { timeoutMs: 60_000, describe: () => `snapshot ${name} ready: ${JSON.stringify(snap)}` },
  );
  return snap;
}

export async function readSnapshot(ns: TestNamespace, name: string): Promise<VolumeSnapshotObject> {
  return (await ns.custom.getNamespacedCustomObject({ ...ref(ns), name })) as VolumeSnapshotObject;
}

export async function deleteSnapshot(ns: TestNamespace, name: string): Promise<void> {
  await ns.custom.deleteNamespacedCustomObject({ ...ref(ns), name });
}

/** A 1Gi claim in the test's namespace, hydrated from VolumeSnapshot `snapshot` when named. */
export async function createClaim(ns: TestNamespace, name: string, snapshot?: string): Promise<void> {
  await ns.core.createNamespacedPersistentVolumeClaim({
    namespace: ns.name,
    body: {
      metadata: { name },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '1Gi' } },
        ...(snapshot
          ? { dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: snapshot } }
          : {}),
      },
    },
  });
}
