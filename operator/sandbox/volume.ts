import { sandboxObjectsName, workspaceClaimName, type SandboxTemplateSpec } from '../../core/index.ts';
import { workspaceClaim } from '../manifests/index.ts';
import type { Adopted } from '../warmpool/index.ts';
import type { Found, Pass, VolumeState } from './context.ts';
import { Claim, cachedOwn, ensure } from './owned.ts';
import { releaseCloneSnapshot } from './snapshot-retention.ts';

/**
 * The workspace claim: created when missing; a clone's only once its VolumeSnapshot is
 * ready, and `Error` when it does not become ready in time. Its state goes to the Pod step
 * (returned: the Pod step takes it).
 */
export async function ensureVolume(
  pass: Pass,
  template: SandboxTemplateSpec,
  adopted: Adopted | undefined,
): Promise<Found<VolumeState>> {
  const { sandbox, namespace } = pass;
  const snapshotName = sandbox.spec.cloneFromSnapshot;
  const claimName = workspaceClaimName(sandboxObjectsName(sandbox));
  // A claim of the name that is not this sandbox's is a NameConflict, never its workspace;
  // a warm-pool member's claim becomes its own only through the claim (`adopted`).
  const existing =
    cachedOwn(pass, Claim, claimName) ??
    (adopted?.claim?.metadata?.name === claimName ? adopted.claim : undefined);
  const hydrating = `hydrating the workspace from VolumeSnapshot "${snapshotName}"`;
  const pending = snapshotName ? hydrating : `waiting for claim ${claimName} to bind`;
  const volume = (v: VolumeState): Found<VolumeState> => {
    const reason = v.bound ? 'Bound' : snapshotName ? 'Hydrating' : 'Pending';
    return {
      conditions: [{ type: 'VolumeReady', ok: v.bound, reason, message: v.message }],
      requeueMs: v.waitMs,
      found: v,
    };
  };
  if (existing?.status?.phase === 'Bound') {
    await releaseCloneSnapshot(pass);
    return volume({ bound: true, message: `claim ${claimName} is bound` });
  }
  if (existing) return volume({ bound: false, message: pending });

  let clone: { snapshot: string; storageClassName?: string } | undefined;
  if (snapshotName) {
    const settings = pass.d.settings;
    const snapshot = await pass.d.caches.snapshots.get(namespace, snapshotName);
    const waitedMs = pass.d.now().getTime() - Date.parse(String(sandbox.metadata.creationTimestamp));
    if (!snapshot?.status?.readyToUse) {
      if (waitedMs > settings.snapshotWaitSeconds * 1000) {
        const message = snapshot
          ? `VolumeSnapshot "${snapshotName}" did not become ready within ${settings.snapshotWaitSeconds}s`
          : `VolumeSnapshot "${snapshotName}" not found in namespace ${namespace}`;
        return {
          conditions: [{ type: 'VolumeReady', ok: false, reason: 'SnapshotUnavailable', message }],
          stage: { kind: 'VolumeFailed', message },
        };
      }
      // Watched snapshots reconcile their clones when they change; this is the deadline (and,
      // without the CRD, polling: soon while the clone is young, then every 5 s).
      const waitMs = pass.d.caches.snapshots.informer
        ? settings.snapshotWaitSeconds * 1000 - waitedMs + 50
        : Math.min(5000, Math.max(200, Math.round(waitedMs / 10)));
      return volume({ bound: false, message: hydrating, waitMs });
    }
    const sourceClaim = snapshot.spec?.source?.persistentVolumeClaimName;
    const source = sourceClaim
      ? (pass.d.caches.claims.get(sourceClaim, namespace) ??
        (await pass.d.core
          .readNamespacedPersistentVolumeClaim({ name: sourceClaim, namespace })
          .catch(() => undefined)))
      : undefined;
    clone = { snapshot: snapshotName, storageClassName: source?.spec?.storageClassName };
  }
  await ensure(pass, Claim, workspaceClaim(sandbox, template, clone));
  return volume({ bound: false, message: pending });
}
