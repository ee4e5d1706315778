import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** A request path that may not be written: outside the workspace, relative, or through a link out. */
export class PathRefused extends Error {
  constructor(path: string, why: string) {
    super(`${path}: ${why}`);
    this.name = 'PathRefused';
  }
}

const inside = (root: string, target: string) => {
  const rel = relative(root, target);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
};

/**
 * Where `requested` may be written, or a PathRefused. The path must be absolute, lexically
 * inside `root` (`..` cannot climb out), and its deepest existing ancestor must really be
 * inside `root` once symlinks are followed, so no link can carry a write outside.
 */
export async function resolveInside(root: string, requested: string): Promise<string> {
  if (!isAbsolute(requested)) throw new PathRefused(requested, 'must be an absolute path');
  if (requested.includes('\0')) throw new PathRefused(requested, 'must not contain NUL');
  const target = resolve(requested);
  if (!inside(root, target)) throw new PathRefused(requested, `must be inside ${root}`);
  const realRoot = await realpath(root);
  let probe = dirname(target);
  for (;;) {
    try {
      const real = await realpath(probe);
      if (real !== realRoot && !inside(realRoot, real))
        throw new PathRefused(requested, `resolves outside ${root} through a symbolic link`);
      return target;
    } catch (err) {
      if (err instanceof PathRefused) throw err;
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      probe = dirname(probe);
    }
  }
}
