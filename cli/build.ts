// `make cli-binary`: sbx as one executable file, dist/sbx. esbuild bundles cli/sbx.ts and
// everything it imports into one CommonJS file; Node's single-executable support turns it
// into a blob (with V8's code cache, so start-up skips compiling); postject injects the blob
// into a copy of the project's Node binary. The result runs without node_modules or a Node
// on PATH. Built in a temporary folder and renamed into place, so a failed build leaves the
// previous binary whole.
import { execFileSync } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const root = resolve(import.meta.dirname, '..');
/** The fuse Node's binary carries to say "a blob was injected" (its documented name). */
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** Runs a step, its output shown only if it fails. */
function quietly(file: string, args: string[]): void {
  try {
    execFileSync(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stdout?: Buffer; stderr?: Buffer };
    process.stderr.write(`${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`);
    throw err;
  }
}

async function main(): Promise<void> {
  const out = join(root, 'dist');
  await mkdir(out, { recursive: true });
  const tmp = await mkdtemp(join(out, '.sbx-build-'));
  try {
    const bundle = join(tmp, 'sbx.cjs');
    await build({
      entryPoints: [join(root, 'cli/sbx.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node24',
      minify: true,
      legalComments: 'none',
      outfile: bundle,
      logLevel: 'warning',
    });
    const config = join(tmp, 'sea.json');
    const blob = join(tmp, 'sbx.blob');
    await writeFile(
      config,
      JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true }),
    );
    quietly(process.execPath, ['--experimental-sea-config', config]);
    const binary = join(tmp, 'sbx');
    await copyFile(process.execPath, binary);
    await chmod(binary, 0o755);
    // postject's ELF library warns about every note section it does not name: shown only
    // when the injection fails.
    const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js');
    quietly(process.execPath, [postject, binary, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', FUSE]);
    await rename(binary, join(out, 'sbx'));
    await rename(bundle, join(out, 'sbx.cjs'));
    process.stdout.write(`${join(out, 'sbx')}\n`);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

await main();
