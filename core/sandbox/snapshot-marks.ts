import { createHash } from 'node:crypto';
import { Labels } from './resource.ts';

/**
 * What a clone's VolumeSnapshot carries: whose workspace it holds and which sandbox it was
 * taken from. A Sandbox written straight to the apiserver may name a snapshot only when
 * its writer is that owner (see the webhook's `snapshotAdmission`).
 */
export const SnapshotMarks = {
  /** The owner's username, exactly (an annotation: usernames need not be label values). */
  owner: 'svc.io/owner',
  /** A label-safe digest of the owner, to select a user's snapshots. */
  ownerHash: 'svc.io/owner-hash',
  /** The source sandbox's uid; its name is the `svc.io/sandbox` label. */
  sourceUid: 'svc.io/source-uid',
} as const;

/** The first 32 hex digits of the owner's SHA-256: a label value for any username. */
export const ownerHash = (owner: string) => createHash('sha256').update(owner).digest('hex').slice(0, 32);

/**
 * Labels and annotations of the snapshot a clone takes of `source`, whose owner (its
 * `createdBy`) is `owner`: the data is the source's, whoever clones it.
 */
export function snapshotMarks(
  owner: string,
  source: { name: string; uid?: string },
): { labels: Record<string, string>; annotations: Record<string, string> } {
  return {
    labels: {
      [Labels.sandbox]: source.name,
      [SnapshotMarks.ownerHash]: ownerHash(owner),
      ...(source.uid ? { [SnapshotMarks.sourceUid]: source.uid } : {}),
    },
    annotations: { [SnapshotMarks.owner]: owner },
  };
}

/** The owner a snapshot's marks name, or undefined for one no clone made (or one tampered with). */
export function snapshotOwner(metadata: {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}): string | undefined {
  const owner = metadata.annotations?.[SnapshotMarks.owner];
  if (owner === undefined || metadata.labels?.[SnapshotMarks.ownerHash] !== ownerHash(owner))
    return undefined;
  return owner;
}
