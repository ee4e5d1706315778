// What a killed devnode leaves mounted, and how the next start finds and removes it (on
// real mounts: devnode runs as root).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { mounted, mountsUnder, unmountUnder } from './mounts.ts';
import { run } from './run.ts';

const root = process.getuid?.() === 0;

describe.skipIf(!root)('mounts under a folder', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) {
      await unmountUnder(d).catch(() => undefined);
      await rm(d, { recursive: true, force: true });
    }
  });

  test('unmountUnder removes nested and stacked mounts, deepest first, and says which', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-mounts-'));
    dirs.push(dir);
    const outside = await mkdtemp(join(tmpdir(), 'svc-mounts-outside-'));
    dirs.push(outside);
    const pod = join(dir, 'pods', 'a', 'root', 'merged');
    await mkdir(pod, { recursive: true });
    await run('mount', ['-t', 'tmpfs', 'tmpfs', pod]);
    await run('mount', ['-t', 'tmpfs', 'tmpfs', pod]); // a mount stacked on a stale one
    const nested = join(pod, 'workspace');
    await mkdir(nested);
    await run('mount', ['-t', 'tmpfs', 'tmpfs', nested]);
    await run('mount', ['-t', 'tmpfs', 'tmpfs', outside]);

    expect(await mountsUnder(dir)).toEqual([nested, pod]);
    expect(await unmountUnder(dir)).toEqual([nested, pod]);
    expect(await mountsUnder(dir)).toEqual([]);
    expect(await mounted(pod)).toBe(false);
    // Only under the folder: a mount beside it stays.
    expect(await mounted(outside)).toBe(true);
    expect(await unmountUnder(dir)).toEqual([]);
  });
});
