import { readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';

/** One built file, as it is and gzipped (the build writes `name.gz` beside it). */
export interface Asset {
  body: Uint8Array;
  gzip: Uint8Array | undefined;
  type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.map': 'application/json',
};

/**
 * The built console (`index.html` and `assets/`), read once at start: a few hundred KB that
 * never change while the process runs. A request can only name a file found here, so no
 * path from a request ever reaches the file system.
 */
export function loadAssets(dir: string): { shell: Asset; assets: Map<string, Asset> } {
  const read = (path: string): Asset => ({
    body: readFileSync(path),
    gzip: readOptional(`${path}.gz`),
    type: TYPES[extname(path)] ?? 'application/octet-stream',
  });
  let shell: Asset;
  try {
    shell = read(join(dir, 'index.html'));
  } catch (err) {
    throw new Error(`the console is not built in ${dir} (make console): ${String(err)}`, { cause: err });
  }
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(join(dir, 'assets'))) {
    if (name.endsWith('.gz')) continue;
    assets.set(name, read(join(dir, 'assets', name)));
  }
  return { shell, assets };
}

function readOptional(path: string): Uint8Array | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}
