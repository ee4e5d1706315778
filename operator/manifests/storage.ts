import type { V1PersistentVolumeClaim, V1Secret } from '@kubernetes/client-node';
import {
  SandboxPod,
  sandboxObjectsName,
  sandboxdSecretName,
  workspaceClaimName,
  type Sandbox,
  type SandboxTemplateSpec,
} from '../../core/index.ts';
import { owned } from './meta.ts';

const SNAPSHOT_GROUP = 'snapshot.storage.k8s.io';

export function tokenSecret(sandbox: Sandbox, token: string): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    // The Pod's Secret: a sandbox that claimed a warm member keeps the member's (its Pod mounts it).
    metadata: owned(sandbox, sandboxdSecretName(sandboxObjectsName(sandbox))),
    type: 'Opaque',
    stringData: { [SandboxPod.tokenKey]: token },
  };
}

/**
 * The workspace claim. A clone's claim has the snapshot as its dataSource and the source
 * claim's class, so the same driver restores it.
 */
export function workspaceClaim(
  sandbox: Sandbox,
  template: SandboxTemplateSpec,
  clone?: { snapshot: string; storageClassName?: string },
): V1PersistentVolumeClaim {
  const size = sandbox.spec.resources?.storage ?? template.storage?.size ?? '1Gi';
  const storageClassName = clone ? clone.storageClassName : template.storage?.storageClassName;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: owned(sandbox, workspaceClaimName(sandboxObjectsName(sandbox))),
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: String(size) } },
      ...(storageClassName ? { storageClassName } : {}),
      ...(clone
        ? { dataSource: { apiGroup: SNAPSHOT_GROUP, kind: 'VolumeSnapshot', name: clone.snapshot } }
        : {}),
    },
  };
}
