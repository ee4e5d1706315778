import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';
import { run } from './run.ts';

/**
 * Copies the tree `from` into a new folder `to`, atomically: `cp -a --reflink=auto` into
 * a staging folder beside it, then one rename, so `to` either does not exist or is
 * complete. Reflinks make it a metadata copy on XFS or btrfs; elsewhere it is a full copy.
 */
export async function copyTree(from: string, to: string): Promise<void> {
  const staging = join(dirname(to), `.staging-${basename(to)}`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await run('cp', ['-a', '--reflink=auto', `${from}/.`, `${staging}/`]);
  await rm(to, { recursive: true, force: true });
  await rename(staging, to);
}
