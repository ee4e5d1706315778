import { CoreV1Api, CustomObjectsApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ignoring, isStatus, mergePatch, splitKey, type Informer } from '../../kube/index.ts';
import type { Layout } from '../options.ts';
import { DRIVER, SNAPSHOT_CLASS, SNAPSHOT_GROUP, SNAPSHOT_VERSION } from './classes.ts';
import type { Clones } from './clones.ts';
import { copyTree } from './copy.ts';
import type { SnapshotData } from './retention.ts';

const FINALIZER = 'devnode.svc.io/snapshot';

interface VolumeSnapshot extends KubernetesObject {
  spec?: { source?: { persistentVolumeClaimName?: string }; volumeSnapshotClassName?: string };
  status?: { readyToUse?: boolean; boundVolumeSnapshotContentName?: string };
}

export interface SnapshotterDeps {
  kc: KubeConfig;
  logger: Logger;
  layout: Layout;
  snapshots: Informer<VolumeSnapshot>;
  clones: Clones;
  snapshotData: SnapshotData;
}

/**
 * The CSI snapshotter for devnode's volumes: a VolumeSnapshot of a bound claim copies
 * the claim's folder (reflink where possible), gets its VolumeSnapshotContent and becomes
 * readyToUse with its restoreSize. A claim that is itself a clone is copied through its
 * mount, merged, so every snapshot stands alone. Deleting a snapshot never touches a
 * claim hydrated from it: its data stays for the clones still reading it (`SnapshotData`).
 */
export class Snapshotter {
  readonly #d: SnapshotterDeps;
  readonly #core: CoreV1Api;
  readonly #custom: CustomObjectsApi;

  constructor(deps: SnapshotterDeps) {
    this.#d = deps;
    this.#core = deps.kc.makeApiClient(CoreV1Api);
    this.#custom = deps.kc.makeApiClient(CustomObjectsApi);
  }

  reconcile = async (key: string): Promise<number | void> => {
    const { namespace, name } = splitKey(key);
    const snap = this.#d.snapshots.get(name, namespace);
    if (!snap?.metadata?.uid) return;
    const uid = snap.metadata.uid;
    const content = `snapcontent-${uid}`;
    const ref = {
      group: SNAPSHOT_GROUP,
      version: SNAPSHOT_VERSION,
      plural: 'volumesnapshots',
      namespace,
      name,
    };
    if (snap.metadata.deletionTimestamp) {
      if (!snap.metadata.finalizers?.includes(FINALIZER)) return;
      await this.#d.snapshotData.retire(content);
      await ignoring([404], () =>
        this.#custom.deleteClusterCustomObject({
          group: SNAPSHOT_GROUP,
          version: SNAPSHOT_VERSION,
          plural: 'volumesnapshotcontents',
          name: content,
        }),
      );
      await this.#custom.patchNamespacedCustomObject(
        {
          ...ref,
          body: {
            metadata: {
              finalizers: snap.metadata.finalizers.filter((f) => f !== FINALIZER),
              resourceVersion: snap.metadata.resourceVersion,
            },
          },
        },
        mergePatch,
      );
      return;
    }
    if (snap.status?.readyToUse) return;
    const cls = snap.spec?.volumeSnapshotClassName;
    if (cls && cls !== SNAPSHOT_CLASS) return; // another driver's
    const claimName = snap.spec?.source?.persistentVolumeClaimName;
    if (!claimName) return;
    if (!snap.metadata.finalizers?.includes(FINALIZER)) {
      await this.#custom.patchNamespacedCustomObject(
        {
          ...ref,
          body: {
            metadata: {
              finalizers: [...(snap.metadata.finalizers ?? []), FINALIZER],
              resourceVersion: snap.metadata.resourceVersion,
            },
          },
        },
        mergePatch,
      );
      return; // the update comes back through the watch
    }
    let claim;
    try {
      claim = await this.#core.readNamespacedPersistentVolumeClaim({ name: claimName, namespace });
    } catch (err) {
      if (isStatus(err, 404)) return 1000;
      throw err;
    }
    if (claim.status?.phase !== 'Bound' || !claim.spec?.volumeName) return 1000;
    const started = Date.now();
    await this.#d.clones.ensureMounted(claim.spec.volumeName);
    await copyTree(this.#d.layout.volume(claim.spec.volumeName), this.#d.layout.snapshot(content));
    const restoreSize = claim.status.capacity?.storage ?? claim.spec.resources?.requests?.storage ?? '1Gi';
    await ignoring([409], () =>
      this.#custom.createClusterCustomObject({
        group: SNAPSHOT_GROUP,
        version: SNAPSHOT_VERSION,
        plural: 'volumesnapshotcontents',
        body: {
          apiVersion: `${SNAPSHOT_GROUP}/${SNAPSHOT_VERSION}`,
          kind: 'VolumeSnapshotContent',
          metadata: { name: content },
          spec: {
            deletionPolicy: 'Delete',
            driver: DRIVER,
            source: { snapshotHandle: content },
            volumeSnapshotClassName: SNAPSHOT_CLASS,
            volumeSnapshotRef: {
              apiVersion: `${SNAPSHOT_GROUP}/${SNAPSHOT_VERSION}`,
              kind: 'VolumeSnapshot',
              name,
              namespace,
              uid,
            },
          },
        },
      }),
    );
    await this.#custom.patchClusterCustomObjectStatus(
      {
        group: SNAPSHOT_GROUP,
        version: SNAPSHOT_VERSION,
        plural: 'volumesnapshotcontents',
        name: content,
        body: { status: { readyToUse: true, snapshotHandle: content, creationTime: Date.now() * 1_000_000 } },
      },
      mergePatch,
    );
    await this.#custom.patchNamespacedCustomObjectStatus(
      {
        ...ref,
        body: {
          status: {
            boundVolumeSnapshotContentName: content,
            readyToUse: true,
            restoreSize,
            creationTime: new Date().toISOString(),
          },
        },
      },
      mergePatch,
    );
    this.#d.logger.info({ snapshot: key, claim: claimName, ms: Date.now() - started }, 'snapshot ready');
  };
}
