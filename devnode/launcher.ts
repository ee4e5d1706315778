import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The command that stands in for sandboxd's executable on devnode: this checkout's
 * sandboxd bundled into one file (as the single executable is, without its 100 MB copy of
 * Node), run by this Node. Bundling takes a fraction of a second and keeps a sandbox's
 * start from compiling hundreds of TypeScript modules.
 */
export async function sandboxdLauncher(repoRoot: string, outDir: string): Promise<string[]> {
  const out = join(outDir, 'sandboxd.cjs');
  await promisify(execFile)(join(repoRoot, 'node_modules/.bin/esbuild'), [
    join(repoRoot, 'hack/sea/entry.ts'),
    '--bundle',
    '--platform=node',
    '--target=node24',
    '--format=cjs',
    `--outfile=${out}`,
    '--log-level=warning',
  ]);
  return [await realpath(process.execPath), out];
}
