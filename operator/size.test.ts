import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 21: one concern per file; a file that outgrows this is doing two things.
const MAX_LINES = 250;

describe('operator/', () => {
  it(`has no source file over ${MAX_LINES} lines`, async () => {
    const dir = import.meta.dirname;
    const files = (await readdir(dir, { recursive: true })).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
    );
    expect(files.length).toBeGreaterThan(10);
    const over: string[] = [];
    for (const f of files) {
      const lines = (await readFile(join(dir, f), 'utf8')).split('\n').length - 1;
      if (lines > MAX_LINES) over.push(`${f}: ${lines}`);
    }
    expect(over).toEqual([]);
  });
});
