import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';

const run = promisify(execFile);

/**
 * The Pod's root: an overlay over the host's `/` in `podDir/root`, so the Pod writes
 * anywhere and the host sees none of it. Undefined when the host refuses the mount: the
 * Pod then sees a read-only host root.
 */
export async function mountRoot(podDir: string, logger: Logger): Promise<string | undefined> {
  const base = join(podDir, 'root');
  const [upper, work, merged] = ['upper', 'work', 'merged'].map((d) => join(base, d)) as [
    string,
    string,
    string,
  ];
  await Promise.all([upper, work, merged].map((d) => mkdir(d, { recursive: true })));
  try {
    await run('mount', [
      '-t',
      'overlay',
      'overlay',
      '-o',
      `lowerdir=/,upperdir=${upper},workdir=${work}`,
      merged,
    ]);
    return merged;
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'no overlay root; the Pod sees a read-only host root');
    return undefined;
  }
}

/** Undoes `mountRoot` (lazily: a process of the Pod still dying may hold it a moment). */
export async function unmountRoot(root: string): Promise<void> {
  await run('umount', ['-l', root]).catch(() => undefined);
}
