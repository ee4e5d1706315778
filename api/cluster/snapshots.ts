import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { HttpError } from '../errors/index.ts';
import { statusCode } from './kube-errors.ts';

const group = 'snapshot.storage.k8s.io';
const version = 'v1';
const plural = 'volumesnapshots';

/** VolumeSnapshots of sandbox workspaces (standalone objects: no owner, they outlive the source). */
export class SnapshotWriter {
  readonly #custom: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.#custom = kc.makeApiClient(CustomObjectsApi);
  }

  /** Creates the snapshot; false when one of that name exists already (the caller picks another). */
  async create(opts: {
    namespace: string;
    name: string;
    claim: string;
    snapshotClass?: string;
    labels: Record<string, string>;
    annotations?: Record<string, string>;
  }): Promise<boolean> {
    const body = {
      apiVersion: `${group}/${version}`,
      kind: 'VolumeSnapshot',
      metadata: {
        name: opts.name,
        namespace: opts.namespace,
        labels: opts.labels,
        ...(opts.annotations ? { annotations: opts.annotations } : {}),
      },
      spec: {
        source: { persistentVolumeClaimName: opts.claim },
        ...(opts.snapshotClass ? { volumeSnapshotClassName: opts.snapshotClass } : {}),
      },
    };
    try {
      await this.#custom.createNamespacedCustomObject({
        group,
        version,
        namespace: opts.namespace,
        plural,
        body,
      });
      return true;
    } catch (err) {
      if (statusCode(err) === 409) return false;
      throw snapshotError(err);
    }
  }

  /**
   * Whether the VolumeSnapshotClass exists. Without the snapshot CRDs the resource itself is
   * missing: that is not the class's fault, so it counts as present and the create says why.
   */
  async classExists(name: string): Promise<boolean> {
    try {
      await this.#custom.getClusterCustomObject({ group, version, plural: 'volumesnapshotclasses', name });
      return true;
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
      return !isObjectNotFound(err);
    }
  }

  async delete(namespace: string, name: string): Promise<void> {
    await this.#custom
      .deleteNamespacedCustomObject({ group, version, namespace, plural, name })
      .catch(() => undefined);
  }
}

/**
 * Without the snapshot CRDs the apiserver answers 404 for the resource; say it the way
 * Kubernetes clients do, so operators recognise the missing prerequisite.
 */
function snapshotError(err: unknown): Error {
  const code = statusCode(err);
  if (code === 404) {
    return new HttpError(
      500,
      'snapshot_unsupported',
      `failed to create VolumeSnapshot: no matches for kind "VolumeSnapshot" in version "${group}/${version}"; ` +
        'install the VolumeSnapshot CRDs, a snapshot controller and a VolumeSnapshotClass to clone sandboxes',
    );
  }
  const message = (err as { body?: unknown }).body;
  return new HttpError(
    500,
    'snapshot_failed',
    `failed to create VolumeSnapshot: ${typeof message === 'string' ? message : String(err)}`,
  );
}

/** A 404 about a named object (a Status with reason NotFound), not about a missing resource type. */
function isObjectNotFound(err: unknown): boolean {
  const body = (err as { body?: unknown }).body;
  try {
    const status = (typeof body === 'string' ? JSON.parse(body) : body) as {
      reason?: string;
      details?: { name?: string };
    };
    return status?.reason === 'NotFound' && !!status.details?.name;
  } catch {
    return false;
  }
}
