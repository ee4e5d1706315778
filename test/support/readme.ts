import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** The README's `sh` code blocks, in order (test/readme.test.ts reads them; test/dev.test.ts runs them). */
export async function readmeShellBlocks(): Promise<string[]> {
  const text = await readFile(join(resolve(import.meta.dirname, '../..'), 'README.md'), 'utf8');
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}
