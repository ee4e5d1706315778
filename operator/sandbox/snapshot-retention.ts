import {
  resolvePolicy,
  sandboxObjectsName,
  snapshotOwner,
  workspaceClaimName,
  type Sandbox,
} from '../../core/index.ts';
import { Index } from '../indexes.ts';
import type { Pass } from './context.ts';

/**
 * A clone's VolumeSnapshot is deleted once the clone's claim is bound (hydrated: the claim
 * no longer needs it), unless the policy in force says `keepCloneSnapshots: true`: it is a
 * copy of the source's workspace nobody asked to keep. Only a snapshot a clone made (marked
 * with its owner, see `snapshotMarks`) is deleted, never one made by hand; and not while
 * another sandbox that names it still waits to hydrate. A policy that does not parse keeps it.
 */
export async function releaseCloneSnapshot(pass: Pass): Promise<void> {
  const name = pass.sandbox.spec.cloneFromSnapshot;
  const { informer } = pass.d.caches.snapshots;
  if (!name || !informer) return; // without the snapshot API there is no clone to clean after
  const snapshot = informer.get(name, pass.namespace);
  if (!snapshot?.metadata || snapshot.metadata.deletionTimestamp) return;
  if (snapshotOwner(snapshot.metadata) === undefined) return;
  const namers = pass.d.caches.sandboxes.byIndex(Index.snapshot, `${pass.namespace}/${name}`);
  if (namers.some((o) => hydrating(pass, o as Sandbox, name))) return;
  // Read afresh: once per clone, and a policy set a moment ago must count.
  try {
    const { cluster, namespace } = await pass.d.policies.forNamespace(pass.namespace);
    if (resolvePolicy(cluster, namespace).keepCloneSnapshots === true) return;
  } catch (err) {
    pass.log.warn({ err }, 'reading the governance policy failed: the clone snapshot is kept');
    return;
  }
  await pass.d.caches.snapshots.delete(pass.namespace, name);
  await pass.d.event(
    pass,
    'Normal',
    'SnapshotDeleted',
    `VolumeSnapshot ${name} deleted: the workspace is hydrated from it (a policy with keepCloneSnapshots keeps it)`,
  );
}

/** Whether `other`, another sandbox, names snapshot `name` and its claim is not bound yet. */
function hydrating(pass: Pass, other: Sandbox, name: string): boolean {
  if (other.metadata.name === pass.name || other.metadata.deletionTimestamp) return false;
  if (other.spec?.cloneFromSnapshot !== name) return false;
  const claim = pass.d.caches.claims.get(workspaceClaimName(sandboxObjectsName(other)), pass.namespace);
  return claim?.status?.phase !== 'Bound';
}
