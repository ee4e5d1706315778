import { isDeepStrictEqual } from 'node:util';
import type { SnapshotOwners } from '../kube/index.ts';
import { madeBy, type AdmissionRequest, type Verdict } from './review.ts';

const deny = (message: string): Verdict => ({
  allowed: false,
  reason: 'policy_violation',
  message: `policy_violation: snapshot_not_allowed: ${message}`,
});

/**
 * `spec.cloneFromSnapshot` written straight to the apiserver (a create, or an update that
 * sets it): the VolumeSnapshot must exist and be the writer's, as the marks a clone wrote
 * on it say (its owner is the source sandbox's `createdBy`). No admin exception here: an
 * admin clones someone else's sandbox through the API, which checks owner-or-admin and
 * writes as its ServiceAccount, the one writer that passes. A name that does not exist yet
 * is refused too, so nobody can claim a snapshot a later clone will take
 * (`<source>-snap-<unix-ts>` is predictable).
 */
export function snapshotAdmission(
  owners: SnapshotOwners,
  opts: { apiServiceAccount?: string },
): (request: AdmissionRequest) => Promise<Verdict> {
  return async function admitSnapshot(request) {
    const named = (request.object?.spec as { cloneFromSnapshot?: unknown } | undefined)?.cloneFromSnapshot;
    if (typeof named !== 'string' || !request.namespace) return { allowed: true }; // the schema refuses a non-string
    if (request.operation === 'UPDATE') {
      const before = (request.oldObject?.spec as { cloneFromSnapshot?: unknown } | undefined)
        ?.cloneFromSnapshot;
      if (isDeepStrictEqual(before, named)) return { allowed: true };
    }
    if (madeBy(request, opts.apiServiceAccount)) return { allowed: true };
    const writer = request.userInfo.username ?? '';
    const found = await owners.owner(request.namespace, named);
    if (found.missing)
      return deny(`VolumeSnapshot ${named} does not exist in namespace ${request.namespace}`);
    if (!writer || found.owner !== writer)
      return deny(`VolumeSnapshot ${named} is not ${writer}'s: only its owner may clone from it`);
    return { allowed: true };
  };
}
