// Builds the browser console into dist/console (run by `make console`): index.html, and
// assets/ with content-hashed names (so the API can let browsers cache them for a year) and a
// gzipped copy of each (so the API serves them compressed without compressing per request).
// The terminal (xterm.js) is its own chunk, loaded when a terminal is first opened.
//   node console/build.ts [--out dist/console]
import { build } from 'esbuild';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync, constants } from 'node:zlib';

const root = resolve(import.meta.dirname, '..');

export async function buildConsole(out: string): Promise<{ files: string[] }> {
  const assets = join(out, 'assets');
  await rm(out, { recursive: true, force: true });
  await mkdir(assets, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { main: 'console/src/main.tsx' },
    bundle: true,
    splitting: true,
    format: 'esm',
    target: ['chrome120', 'firefox120', 'safari17'],
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: assets,
    entryNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    publicPath: '/assets',
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
  const js = outputs.find((f) => /^main-.*\.js$/.test(f));
  const css = outputs.find((f) => /^main-.*\.css$/.test(f));
  if (!js || !css) throw new Error(`the build made no main script or stylesheet: ${outputs.join(', ')}`);
  const html = (await readFile(join(root, 'console/src/index.html'), 'utf8'))
    .replace('%MAIN_JS%', `/assets/${js}`)
    .replace('%MAIN_CSS%', `/assets/${css}`);
  await writeFile(join(out, 'index.html'), html);
  const files = ['index.html', ...(await readdir(assets)).map((f) => `assets/${f}`)];
  for (const f of files) {
    const body = await readFile(join(out, f));
    await writeFile(join(out, `${f}.gz`), gzipSync(body, { level: constants.Z_BEST_COMPRESSION }));
  }
  return { files };
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: join(root, 'dist/console') } } });
  const { files } = await buildConsole(resolve(values.out));
  console.log(`console: ${files.length} files in ${values.out}`);
}
