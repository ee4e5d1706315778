import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedFiles } from './generate.ts';

describe('generated files', () => {
  it.each([...generatedFiles()])(
    '%s matches the zod schemas (run `make generate` on drift)',
    async (path, content) => {
      const checkedIn = await readFile(join(import.meta.dirname, '..', path), 'utf8');
      expect(checkedIn).toBe(content);
    },
  );
});
