import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1PersistentVolumeClaim,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { parseQuantity } from '../../core/index.ts';
import { ignoring, isStatus, mergePatch, splitKey, type Informer } from '../../kube/index.ts';
import type { Layout } from '../options.ts';
import { DRIVER, SNAPSHOT_GROUP, SNAPSHOT_VERSION, STORAGE_CLASS } from './classes.ts';
import type { Clones } from './clones.ts';
import { copyTree } from './copy.ts';
import { mounted } from './mounts.ts';
import { run } from './run.ts';
import type { SnapshotData } from './retention.ts';

const PVC_PROTECTION = 'kubernetes.io/pvc-protection';

export interface ProvisionerDeps {
  kc: KubeConfig;
  logger: Logger;
  layout: Layout;
  claims: Informer<V1PersistentVolumeClaim>;
  clones: Clones;
  snapshotData: SnapshotData;
  claimInUse: (namespace: string, name: string) => boolean;
  /** A new claim's folder is a tmpfs of its requested size (see DevnodeOptions). */
  enforceVolumeSize: boolean;
}

interface Snapshot {
  status?: { readyToUse?: boolean; boundVolumeSnapshotContentName?: string };
}

/**
 * Plays the external provisioner and the PV controller for devnode's StorageClass: a
 * Pending claim gets a folder under the data dir, a PV pointing at it, and is Bound. A
 * claim whose dataSource is a VolumeSnapshot is first hydrated from the snapshot's data
 * (a copy-on-write clone, see `Clones`, or a copy where overlays do not work) and only
 * then Bound. Deleted claims lose their folder and PV once no Pod uses them (the
 * pvc-protection controller's part, which needs no controller-manager here).
 */
export class Provisioner {
  readonly #o: ProvisionerDeps;
  readonly #core: CoreV1Api;
  readonly #custom: CustomObjectsApi;

  constructor(deps: ProvisionerDeps) {
    this.#o = deps;
    this.#core = deps.kc.makeApiClient(CoreV1Api);
    this.#custom = deps.kc.makeApiClient(CustomObjectsApi);
  }

  reconcile = async (key: string): Promise<number | void> => {
    const { namespace, name } = splitKey(key);
    const claim = this.#o.claims.get(name, namespace);
    if (!claim || !ours(claim)) return;
    if (claim.metadata?.deletionTimestamp) return this.#release(claim);
    if (claim.status?.phase === 'Bound') return;
    const pv = `pvc-${claim.metadata!.uid!}`;
    const dir = this.#o.layout.volume(pv);
    const source = snapshotSource(claim);
    if (source && !existsSync(dir)) {
      const snap = await this.#readSnapshot(namespace, source);
      const content = snap?.status?.boundVolumeSnapshotContentName;
      if (!snap?.status?.readyToUse || !content) return 1000; // not ready yet: look again
      const cloned = await this.#o.snapshotData.use(content, async (from) => {
        if (await this.#o.clones.create(pv, content)) return true;
        await copyTree(from, dir);
        return false;
      });
      this.#o.logger.info({ claim: key, snapshot: source, cloned }, 'claim hydrated from snapshot');
    } else {
      await mkdir(dir, { recursive: true });
      if (this.#o.enforceVolumeSize && !(await mounted(dir))) {
        const { num, den } = parseQuantity(claim.spec?.resources?.requests?.storage ?? '1Gi');
        // Released like a clone's overlay: #release unmounts whatever is on the folder.
        await run('mount', ['-t', 'tmpfs', '-o', `size=${num / den},mode=0755`, 'tmpfs', dir]);
      }
    }
    await this.#bind(claim, pv, dir);
  };

  async #bind(claim: V1PersistentVolumeClaim, pv: string, path: string): Promise<void> {
    const { namespace, name, uid } = claim.metadata as { namespace: string; name: string; uid: string };
    const storage = claim.spec?.resources?.requests?.storage ?? '1Gi';
    const accessModes = claim.spec?.accessModes ?? ['ReadWriteOnce'];
    try {
      await this.#core.createPersistentVolume({
        body: {
          metadata: { name: pv, annotations: { 'pv.kubernetes.io/provisioned-by': DRIVER } },
          spec: {
            capacity: { storage },
            accessModes,
            persistentVolumeReclaimPolicy: 'Delete',
            storageClassName: claim.spec?.storageClassName ?? STORAGE_CLASS,
            claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace, name, uid },
            hostPath: { path, type: 'Directory' },
          },
        },
      });
    } catch (err) {
      if (!isStatus(err, 409)) throw err;
    }
    await this.#core.patchPersistentVolumeStatus(
      { name: pv, body: { status: { phase: 'Bound' } } },
      mergePatch,
    );
    await this.#core.patchNamespacedPersistentVolumeClaim(
      {
        name,
        namespace,
        body: {
          metadata: {
            annotations: {
              'pv.kubernetes.io/bind-completed': 'yes',
              'pv.kubernetes.io/bound-by-controller': 'yes',
              'volume.kubernetes.io/storage-provisioner': DRIVER,
            },
          },
          spec: { volumeName: pv },
        },
      },
      mergePatch,
    );
    await this.#core.patchNamespacedPersistentVolumeClaimStatus(
      { name, namespace, body: { status: { phase: 'Bound', accessModes, capacity: { storage } } } },
      mergePatch,
    );
  }

  /** A deleted claim: once no Pod uses it, its folder and PV go, then its finalizer. */
  async #release(claim: V1PersistentVolumeClaim): Promise<number | void> {
    const { namespace, name } = claim.metadata as { namespace: string; name: string };
    if (this.#o.claimInUse(namespace, name)) return 1000;
    const pv = claim.spec?.volumeName;
    if (pv?.startsWith('pvc-')) {
      const clonedFrom = await this.#o.clones.source(pv);
      // Never remove a folder through a live mount: the overlay goes first, then the empty mount point.
      await this.#o.clones.unmount(pv);
      if (clonedFrom) await this.#o.snapshotData.release(pv, clonedFrom);
      await rm(this.#o.layout.volume(pv), { recursive: true, force: true });
      // The PV's pv-protection finalizer would wait for a controller that does not run.
      await ignoring([404], () =>
        this.#core.patchPersistentVolume({ name: pv, body: { metadata: { finalizers: null } } }, mergePatch),
      );
      await ignoring([404], () => this.#core.deletePersistentVolume({ name: pv }));
    }
    const rest = (claim.metadata?.finalizers ?? []).filter((f) => f !== PVC_PROTECTION);
    await ignoring([404], () =>
      this.#core.patchNamespacedPersistentVolumeClaim(
        {
          name,
          namespace,
          body: { metadata: { finalizers: rest, resourceVersion: claim.metadata?.resourceVersion } },
        },
        mergePatch,
      ),
    );
  }

  async #readSnapshot(namespace: string, name: string): Promise<Snapshot | undefined> {
    try {
      return (await this.#custom.getNamespacedCustomObject({
        group: SNAPSHOT_GROUP,
        version: SNAPSHOT_VERSION,
        namespace,
        plural: 'volumesnapshots',
        name,
      })) as Snapshot;
    } catch (err) {
      if (isStatus(err, 404)) return undefined;
      throw err;
    }
  }
}

/** Claims of devnode's class, or of no class at all (a dev cluster has one provisioner). */
function ours(claim: V1PersistentVolumeClaim): boolean {
  const cls = claim.spec?.storageClassName;
  return cls === undefined || cls === null || cls === STORAGE_CLASS;
}

function snapshotSource(claim: V1PersistentVolumeClaim): string | undefined {
  const ref = claim.spec?.dataSourceRef ?? claim.spec?.dataSource;
  return ref?.kind === 'VolumeSnapshot' && ref.apiGroup === SNAPSHOT_GROUP ? ref.name : undefined;
}
