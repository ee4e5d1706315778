import { readFile, realpath } from 'node:fs/promises';
import { run } from './run.ts';

export interface OverlayLayers {
  /** Read-only, never written while mounted: a snapshot's data. */
  lower: string;
  upper: string;
  work: string;
}

/**
 * Mounts an overlay of `layers` on `target`. `redirect_dir=on` lets a folder that comes
 * from the lower layer be renamed (npm and pnpm rename folders; without it rename(2)
 * answers EXDEV); it must be the same on every mount of the same upper layer.
 */
export async function mountOverlay(layers: OverlayLayers, target: string): Promise<void> {
  const paths = [layers.lower, layers.upper, layers.work];
  // The option string has no escaping devnode could rely on.
  if (paths.some((p) => /[,:\\]/.test(p)))
    throw new Error(`overlay layer path not usable: ${paths.join(' ')}`);
  const options = `lowerdir=${layers.lower},upperdir=${layers.upper},workdir=${layers.work},redirect_dir=on`;
  await run('mount', ['-t', 'overlay', 'overlay', '-o', options, target]);
}

/** Whether something is mounted on `path` in devnode's mount namespace. */
export async function mounted(path: string): Promise<boolean> {
  const target = await realpath(path).catch(() => path);
  return (await mountPoints()).includes(target);
}

/** Every mount point at or below `dir`, deepest first (the order they can be unmounted in). */
export async function mountsUnder(dir: string): Promise<string[]> {
  const top = await realpath(dir).catch(() => dir);
  const under = (await mountPoints()).filter((m) => m === top || m.startsWith(`${top}/`));
  return [...new Set(under)].sort((a, b) => b.length - a.length);
}

/**
 * Unmounts everything at or below `dir` and says what it unmounted. For a devnode that was
 * killed outright (SIGKILL, or its `make dev` was): its Pods' overlay roots and its clones'
 * overlays stay mounted with no one left to unmount them, and the next start must not stack
 * new mounts on them. Lazy, since nothing of the killed Pods can still be using them.
 */
export async function unmountUnder(dir: string): Promise<string[]> {
  const stale = await mountsUnder(dir);
  // A point mounted twice (a mount stacked on a stale one) needs a second round.
  for (let round = 0, left = stale; left.length > 0; round++, left = await mountsUnder(dir)) {
    if (round === 5) throw new Error(`still mounted under ${dir}: ${left.join(' ')}`);
    for (const point of left) await run('umount', ['-l', point]).catch(() => undefined);
  }
  return stale;
}

async function mountPoints(): Promise<string[]> {
  const info = await readFile('/proc/self/mountinfo', 'utf8');
  // Field 5 is the mount point, with space, tab, newline and backslash octal-escaped.
  return info
    .split('\n')
    .filter(Boolean)
    .map((line) => unescape(line.split(' ')[4] ?? ''));
}

/**
 * Unmounts `path` until nothing is mounted there. A busy mount (a process still inside it)
 * is detached lazily: it leaves the namespace at once, so removing the folder afterwards
 * can never reach through it.
 */
export async function unmount(path: string): Promise<void> {
  for (let tries = 0; await mounted(path); tries++) {
    if (tries === 3) throw new Error(`${path} stays mounted`);
    await run('umount', [path]).catch(() => run('umount', ['-l', path]));
  }
}

function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}
