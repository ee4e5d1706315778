// Copy-on-write clones and snapshot data retention on real overlay mounts (devnode runs as root).
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { layout } from '../options.ts';
import { Clones } from './clones.ts';
import { mounted } from './mounts.ts';
import { SnapshotData } from './retention.ts';

const root = process.getuid?.() === 0;
const logger = pino({ level: 'silent' });

describe.skipIf(!root)('clones', () => {
  let dataDir = '';
  let clones: Clones;
  let data: SnapshotData;
  const paths = () => layout(dataDir);

  beforeEach(async () => {
    // The name check-no-leftovers.sh looks for, so a mount left behind fails the run.
    dataDir = await mkdtemp(join(tmpdir(), 'svc-test-devnode-unit-'));
    clones = new Clones({ logger, layout: paths(), dataDir });
    data = new SnapshotData({ logger, layout: paths(), clones });
    const snap = paths().snapshot('snapcontent-1');
    await mkdir(join(snap, 'dir'), { recursive: true });
    await writeFile(join(snap, 'dir', 'a'), 'from the snapshot\n');
  });

  afterEach(async () => {
    await clones.unmountAll();
    await rm(dataDir, { recursive: true, force: true });
  });

  const clone = (pv: string) => data.use('snapcontent-1', () => clones.create(pv, 'snapcontent-1'));

  test('a clone reads the snapshot, writes only its own layer, and is mounted again after a restart', async () => {
    expect(await clone('pvc-a')).toBe(true);
    const vol = paths().volume('pvc-a');
    expect(await mounted(vol)).toBe(true);
    expect(await readFile(join(vol, 'dir', 'a'), 'utf8')).toBe('from the snapshot\n');
    await writeFile(join(vol, 'dir', 'a'), 'changed\n');
    await writeFile(join(vol, 'b'), 'new\n');
    expect(await readFile(join(paths().snapshot('snapcontent-1'), 'dir', 'a'), 'utf8')).toBe(
      'from the snapshot\n',
    );
    expect(existsSync(join(dataDir, 'clones', 'pvc-a', 'upper', 'b'))).toBe(true);

    await clones.unmountAll();
    expect(await mounted(vol)).toBe(false);
    expect(existsSync(join(vol, 'b'))).toBe(false);
    await new Clones({ logger, layout: paths(), dataDir }).mountAll();
    expect(await readFile(join(vol, 'dir', 'a'), 'utf8')).toBe('changed\n');
    expect(await readFile(join(vol, 'b'), 'utf8')).toBe('new\n');
  });

  test('deleting the snapshot keeps its data for its clones until the last one is released', async () => {
    await clone('pvc-a');
    await clone('pvc-b');
    await data.retire('snapcontent-1');
    expect(existsSync(paths().snapshot('snapcontent-1'))).toBe(false);
    const retained = clones.retained('snapcontent-1');
    expect(existsSync(retained)).toBe(true);
    expect(await readFile(join(paths().volume('pvc-a'), 'dir', 'a'), 'utf8')).toBe('from the snapshot\n');

    // A restart finds the data where it was retained.
    await clones.unmountAll();
    await clones.mountAll();
    expect(await readFile(join(paths().volume('pvc-b'), 'dir', 'a'), 'utf8')).toBe('from the snapshot\n');

    await clones.unmount('pvc-a');
    await data.release('pvc-a', 'snapcontent-1');
    expect(existsSync(join(dataDir, 'clones', 'pvc-a'))).toBe(false);
    expect(existsSync(retained)).toBe(true);
    await clones.unmount('pvc-b');
    await data.release('pvc-b', 'snapcontent-1');
    expect(existsSync(retained)).toBe(false);
  });

  test('a snapshot no clone reads is removed at once; orphaned retained data goes at start', async () => {
    await data.retire('snapcontent-1');
    expect(existsSync(paths().snapshot('snapcontent-1'))).toBe(false);
    expect(existsSync(clones.retained('snapcontent-1'))).toBe(false);

    await mkdir(clones.retained('snapcontent-2'), { recursive: true });
    await data.collectOrphans();
    expect(existsSync(clones.retained('snapcontent-2'))).toBe(false);
  });

  test('a mounted clone is never removed', async () => {
    await clone('pvc-a');
    await expect(data.release('pvc-a', 'snapcontent-1')).rejects.toThrow(/still mounted/);
    expect(await readFile(join(paths().volume('pvc-a'), 'dir', 'a'), 'utf8')).toBe('from the snapshot\n');
  });

  test('where overlays cannot be mounted, create says so once and leaves nothing behind', async () => {
    // A comma cannot be passed in overlay's options: the mount fails as it would without overlayfs.
    const odd = await mkdtemp(join(tmpdir(), 'svc-test-devnode-unit,'));
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (l: string) => lines.push(l) });
    try {
      const at = layout(odd);
      await mkdir(at.snapshot('snapcontent-1'), { recursive: true });
      const fallback = new Clones({ logger: log, layout: at, dataDir: odd });
      expect(await fallback.create('pvc-a', 'snapcontent-1')).toBe(false);
      expect(await fallback.create('pvc-b', 'snapcontent-1')).toBe(false);
      expect(lines.filter((l) => l.includes('hydrated from snapshots by copying'))).toHaveLength(1);
      expect(await fallback.users('snapcontent-1')).toEqual([]);
      expect(await mounted(at.volume('pvc-a'))).toBe(false);
    } finally {
      await rm(odd, { recursive: true, force: true });
    }
  });
});
