import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { snapshotOwner } from '../../core/index.ts';
import { isStatus } from '../controller/index.ts';

/** Whose workspace a VolumeSnapshot holds, as the marks a clone wrote on it say. */
export class SnapshotOwners {
  readonly #custom: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.#custom = kc.makeApiClient(CustomObjectsApi);
  }

  /**
   * `missing` when there is no such snapshot (or no snapshot API at all); else its owner,
   * undefined for a snapshot no clone marked.
   */
  async owner(
    namespace: string,
    name: string,
  ): Promise<{ missing: true } | { missing: false; owner?: string }> {
    let snapshot: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> } };
    try {
      snapshot = (await this.#custom.getNamespacedCustomObject({
        group: 'snapshot.storage.k8s.io',
        version: 'v1',
        namespace,
        plural: 'volumesnapshots',
        name,
      })) as typeof snapshot;
    } catch (err) {
      if (isStatus(err, 404)) return { missing: true };
      throw err;
    }
    const owner = snapshotOwner(snapshot.metadata ?? {});
    return owner === undefined ? { missing: false } : { missing: false, owner };
  }
}
