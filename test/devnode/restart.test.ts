// Copy-on-write clones across a devnode restart: their mounts live as long as devnode runs,
// their layers on disk outlive it (as `.dev/` outlives `make dev`).
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, expect, test } from 'vitest';
import { startDevnode, type RunningDevnode } from '../../devnode/index.ts';
import { eventually } from '../../stack/index.ts';
import { createClaim, deleteSnapshot, snapshotClaim, useNamespace } from '../support/index.ts';

const ns = useNamespace('devnode-restart');
const state = { dataDir: '', devnode: undefined as RunningDevnode | undefined };

afterAll(async () => {
  await state.devnode?.stop();
  await ns.core.deleteNode({ name: `devnode-${ns.name}` }).catch(() => undefined);
  if (state.dataDir) await rm(state.dataDir, { recursive: true, force: true });
}, 60_000);

async function start(): Promise<RunningDevnode> {
  return startDevnode({
    kc: ns.kc,
    logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }),
    nodeName: `devnode-${ns.name}`,
    dataDir: state.dataDir,
    namespace: ns.name,
    sandboxdCommand: ['true'], // no Pods here
  });
}

/** Creates a claim and returns its volume folder once it is Bound. */
async function boundClaim(name: string, snapshot?: string): Promise<string> {
  await createClaim(ns, name, snapshot);
  let pv = '';
  await eventually(
    async () => {
      const c = await ns.core.readNamespacedPersistentVolumeClaim({ name, namespace: ns.name });
      pv = c.status?.phase === 'Bound' ? (c.spec?.volumeName ?? '') : '';
      return pv !== '';
    },
    { timeoutMs: 30_000, describe: () => `claim ${name} bound` },
  );
  return join(state.dataDir, 'volumes', pv);
}

const mountedAt = async (dir: string) =>
  (await readFile('/proc/mounts', 'utf8')).includes(` ${dir} overlay `);

test('a clone is unmounted when devnode stops and mounted again, with its writes, when it starts', async () => {
  state.dataDir = await mkdtemp(join(tmpdir(), 'svc-test-devnode-'));
  state.devnode = await start();
  const src = await boundClaim('src');
  await writeFile(join(src, 'from-src'), 'src\n');
  await snapshotClaim(ns, 'snap', 'src');
  const clone = await boundClaim('clone', 'snap');
  expect(await mountedAt(clone)).toBe(true);
  await writeFile(join(clone, 'from-clone'), 'clone\n');

  await state.devnode.stop();
  state.devnode = undefined;
  expect(await mountedAt(clone)).toBe(false);
  expect(existsSync(join(clone, 'from-src'))).toBe(false);

  state.devnode = await start();
  expect(await mountedAt(clone)).toBe(true);
  expect(await readFile(join(clone, 'from-src'), 'utf8')).toBe('src\n');
  expect(await readFile(join(clone, 'from-clone'), 'utf8')).toBe('clone\n');

  // The snapshot goes first, the clone last: its data goes with the clone.
  await deleteSnapshot(ns, 'snap');
  await ns.core.deleteNamespacedPersistentVolumeClaim({ name: 'clone', namespace: ns.name });
  await eventually(
    () =>
      ns.core.readNamespacedPersistentVolumeClaim({ name: 'clone', namespace: ns.name }).then(
        () => false,
        () => true,
      ),
    { timeoutMs: 30_000, describe: () => 'claim clone gone' },
  );
  expect(await mountedAt(clone)).toBe(false);
  expect(existsSync(clone)).toBe(false);
  await eventually(async () => !(await hasData()), {
    timeoutMs: 30_000,
    describe: () => 'snapshot data gone',
  });
}, 120_000);

/** Whether any snapshot data, kept or retained, is left under the data folder. */
async function hasData(): Promise<boolean> {
  const list = async (d: string) => readdir(join(state.dataDir, d)).catch(() => []);
  return (await list('snapshots')).length + (await list('retained')).length > 0;
}
