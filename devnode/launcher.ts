import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The sandboxd executable devnode's init container installs: this checkout's static Go
 * binary, `dist/sandboxd`, built (or found up to date) by `make sandboxd-binary`. The same
 * file the svc image ships, copied into each Pod as the operator's init container does.
 */
export async function sandboxdLauncher(repoRoot: string): Promise<string[]> {
  await promisify(execFile)('make', ['-s', '-C', repoRoot, 'sandboxd-binary']);
  return [join(repoRoot, 'dist/sandboxd')];
}
