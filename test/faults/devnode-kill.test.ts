// SIGKILL of devnode, then of the whole `make dev` (every component dies with it; nothing
// of theirs gets to clean up), each followed by a restart: every sandbox, a clone among
// them (its workspace is an overlay mount), is Running again with its workspace intact,
// and no mount and no process from before the kill is left. (Mount ids are reused by the
// kernel, so "not from before" is shown by devnode's or make dev's account of the stale
// mounts it removed, and by exactly one mount on each point afterwards: a new mount
// stacked on a stale one would show its point twice.)
import { afterAll, beforeAll, expect, test } from 'vitest';
import { eventually } from '../../stack/index.ts';
import { FAULT_AGENT } from './scripts.ts';
import { DevStack, alive } from './stack.ts';

let stack: DevStack;
beforeAll(async () => {
  stack = await DevStack.create('fault-devnode');
  await stack.start();
}, 200_000);
afterAll(() => stack.remove(), 90_000);

const SANDBOXES = ['keep-a', 'keep-b', 'keep-clone'];

/** An invoke that may meet a sandbox still coming back: retried until it completes. */
async function invokeOk(name: string, stdin: string): Promise<string> {
  let out = '';
  await eventually(
    async () => {
      const r = await stack.invokeToEnd(name, stdin);
      out = r.stdout;
      const exit = r.events.at(-1);
      return exit?.event === 'exit' && (JSON.parse(exit.data) as { exitCode: number }).exitCode === 0;
    },
    { timeoutMs: 90_000, intervalMs: 500, describe: () => `invoke ${name} ${stdin.trim()}: ${out}` },
  );
  return out.trim();
}

/** Each sandbox's files: name → sha256, as the sandbox reads them now. */
async function workspaces(files: Map<string, string[]>): Promise<Record<string, Record<string, string>>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [sandbox, names] of files) {
    out[sandbox] = {};
    for (const f of names) out[sandbox][f] = await invokeOk(sandbox, `get ${f}\n`);
  }
  return out;
}

/** Waits until every sandbox runs a sandboxd other than `old` ones, and is Running. */
async function restarted(old: Map<string, number>): Promise<Map<string, number>> {
  const now = new Map<string, number>();
  for (const name of SANDBOXES) {
    await eventually(
      async () => {
        const { pid } = await stack.sandboxdPid(name);
        now.set(name, pid);
        return pid !== old.get(name);
      },
      { timeoutMs: 120_000, describe: () => `a new sandboxd in ${name}` },
    );
    await stack.running(name);
  }
  return now;
}

async function sandboxdPids(): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const name of SANDBOXES) out.set(name, (await stack.sandboxdPid(name)).pid);
  return out;
}

test('devnode, then the whole make dev, killed and restarted: sandboxes Running, workspaces intact, nothing left from before', async () => {
  await stack.agent('keep-a', FAULT_AGENT);
  await stack.agent('keep-b', FAULT_AGENT);
  const expected: Record<string, Record<string, string>> = {
    'keep-a': { one: await invokeOk('keep-a', 'put one alpha\n') },
    'keep-b': { two: await invokeOk('keep-b', 'put two bravo\n') },
  };
  const cloned = await stack.call('POST', '/sandboxes/keep-a/clone', { body: { name: 'keep-clone' } });
  expect(cloned.status).toBe(202);
  await stack.running('keep-clone');
  // The clone reads its source's file through its overlay and writes one of its own.
  expected['keep-clone'] = {
    one: expected['keep-a']!.one!,
    mine: await invokeOk('keep-clone', 'put mine charlie\n'),
  };
  const files = new Map(Object.entries(expected).map(([s, f]) => [s, Object.keys(f)]));
  expect(await workspaces(files)).toEqual(expected);

  // 1. devnode alone.
  const mounts = await stack.mounts();
  // Three Pod roots and the clone's workspace at least, each mounted once.
  expect(mounts.length).toBeGreaterThanOrEqual(4);
  expect(new Set(mounts).size).toBe(mounts.length);
  let pods = await sandboxdPids();
  const [devnode] = await stack.pidsOf('devnode');
  process.kill(devnode!, 'SIGKILL');
  await eventually(
    async () => {
      const now = await stack.pidsOf('devnode');
      return now.length === 1 && now[0] !== devnode;
    },
    { timeoutMs: 30_000, describe: () => 'make dev restarting devnode' },
  );
  const fresh = await restarted(pods);
  expect(await workspaces(files)).toEqual(expected);
  for (const pid of [devnode!, ...pods.values()]) expect(await alive(pid)).toBe(false);
  expect(await stack.mounts()).toEqual(mounts);
  const unmounted = [
    ...(await stack.log('devnode')).matchAll(
      /"mounts":(\[[^\]]*\]).*unmounted what a previous devnode left mounted/g,
    ),
  ];
  expect(unmounted.map((m) => (JSON.parse(m[1]!) as string[]).sort())).toEqual([mounts]);

  // 2. The whole stack: make dev itself gets SIGKILL.
  pods = fresh;
  const before = (await stack.processes()).map((p) => p.pid);
  expect(before.length).toBeGreaterThanOrEqual(8); // etcd, apiserver, 4 components, 3 Pods
  await stack.kill();
  await eventually(async () => (await Promise.all(before.map(alive))).every((a) => !a), {
    timeoutMs: 30_000,
    describe: () => 'every process of the killed make dev gone',
  });
  // Killed outright, devnode could not unmount: this is what the next start finds.
  expect(await stack.mounts()).toEqual(mounts);

  await stack.start();
  expect(stack.output).toContain(`unmounted ${mounts.length} mount(s) a killed run left`);
  await restarted(pods);
  expect(await workspaces(files)).toEqual(expected);
  expect(await stack.mounts()).toEqual(mounts);
  const after = new Set((await stack.processes()).map((p) => p.pid));
  expect(before.filter((pid) => after.has(pid))).toEqual([]);
}, 600_000);
