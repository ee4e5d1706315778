// Usage and idle that means idle (issue 36) on the real stack: the API, the operator, devnode
// (a cgroup per Pod) and the real sandboxd. CPU and workspace figures moved by real work;
// idleTimeout held off by a running exec and by an open terminal, and on time with nothing.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import type { Sandbox } from '../../core/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  waitForSandboxPhase,
  type TestApi,
} from '../support/index.ts';
import { SLOW, createAs, reachable, sse } from './code-mode.ts';

const MiB = 1024 * 1024;
const ns = useNamespace('usage');
useDevnode(ns);
const template = useClusterTemplate('usage', ns, {});
useOperator(ns, { identity: 'usage-test', logger: pino({ level: 'silent' }) });
let api: TestApi;
let base: string;

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: SLOW });
  base = await api.serve();
}, SLOW);
afterAll(async () => api?.close(), 30_000);

/** A Running sandbox of alice's, its sandboxd reachable; when it was seen Running. */
async function running(name: string, spec: object = {}): Promise<number> {
  await createAs(api, api.keys.alice, { name, mode: 'code', templateRef: { name: template }, ...spec });
  await waitForSandboxPhase(ns, name, 'Running', SLOW);
  const at = Date.now();
  await reachable(api, ns, name);
  return at;
}

interface Usage {
  cpu: { cores: number; throttledSeconds: number; limitCores: number | null };
  memory: { workingSetBytes: number; limitBytes: number | null };
  workspace: { usedBytes: number; freeBytes: number; totalBytes: number };
  processes: number;
  runs: { exec: number; invoke: number; configure: number };
  terminals: number;
  cgroup: boolean;
  history?: { at: string; cpuCores: number; memoryBytes: number }[];
}

async function usage(name: string, query = ''): Promise<Usage> {
  const res = await api.call('GET', `/sandboxes/${name}/usage${query}`, { key: api.keys.alice });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Usage;
}

const exec = async (name: string, command: string) => {
  const res = await api.call('POST', `/sandboxes/${name}/exec`, { key: api.keys.alice, body: { command } });
  expect(res.status).toBe(200);
  return (await res.json()) as { exitCode: number; stdout: string };
};

/** When the sandbox's `Expired` condition turned True (ms), once it did. */
async function expiredAt(name: string, timeoutMs: number): Promise<{ at: number; sandbox: Sandbox }> {
  const s = await api.deps.cache.until(
    ns.name,
    name,
    (x) => x?.status?.conditions?.some((c) => c.type === 'Expired' && c.status === 'True') ?? false,
    timeoutMs,
  );
  const c = s!.status!.conditions!.find((x) => x.type === 'Expired')!;
  return { at: Date.parse(c.lastTransitionTime), sandbox: s! };
}

const expired = (name: string) =>
  api.deps.cache
    .get(ns.name, name)
    ?.status?.conditions?.some((c) => c.type === 'Expired' && c.status === 'True') ?? false;

describe('usage', () => {
  test('a CPU-burning exec shows the CPU it gets (its own clock: one core on an idle machine); 100 MiB written moves the workspace by 100 MiB', async () => {
    await running('use-figures');
    const idle = await usage('use-figures', '?history=60');
    expect(idle.cgroup).toBe(true);
    expect(idle.runs).toEqual({ exec: 0, invoke: 0, configure: 0 });
    expect(idle.memory.workingSetBytes).toBeGreaterThan(0);
    expect(idle.processes).toBeGreaterThanOrEqual(1);
    expect(idle.history!.length).toBeGreaterThan(0);

    // A busy loop, its own CPU clock read over 6 s beside it: on an idle machine it gets one
    // core; on a loaded one (two cores shared by several test runs) less, and usage must say
    // what it really got, not a figure of the machine.
    const script = [
      "sh -c 'while :; do :; done' & p=$!; sleep 1",
      'a=$(cut -d" " -f14,15 /proc/$p/stat); t0=$(date +%s%N); sleep 6',
      'b=$(cut -d" " -f14,15 /proc/$p/stat); t1=$(date +%s%N); kill $p',
      'echo $a $b $t0 $t1 $(getconf CLK_TCK)',
    ].join('; ');
    const burned = await exec('use-figures', script);
    const [u0, s0, u1, s1, t0, t1, hz] = burned.stdout.trim().split(' ').map(Number);
    const [from, to] = [t0! / 1e6, t1! / 1e6];
    const own = (u1! + s1! - u0! - s0!) / hz! / ((to - from) / 1000);
    const window = (await usage('use-figures', '?history=60')).history!.filter(
      (x) => Date.parse(x.at) > from + 1_000 && Date.parse(x.at) <= to,
    );
    expect(window.length).toBeGreaterThanOrEqual(3);
    const shown = window.reduce((sum, x) => sum + x.cpuCores, 0) / window.length;
    console.log(`busy loop: its own clock ${own.toFixed(3)} cores, usage ${shown.toFixed(3)} cores`);
    expect(Math.abs(shown - own)).toBeLessThan(0.15);
    expect(shown).toBeLessThan(1.2);

    const before = (await usage('use-figures')).workspace.usedBytes;
    const wrote = await exec('use-figures', 'head -c 104857600 /dev/zero > /workspace/big && sync');
    expect(wrote.exitCode).toBe(0);
    let after = before;
    await eventually(
      async () => (after = (await usage('use-figures')).workspace.usedBytes) - before >= 99 * MiB,
      {
        timeoutMs: 30_000,
        describe: () => `workspace moved by ${(after - before) / MiB} MiB`,
      },
    );
    expect(Math.abs(after - before - 100 * MiB)).toBeLessThanOrEqual(MiB);
  }, 180_000);

  test('as SSE: a usage event every 2 s until the caller leaves; bob: 403', async () => {
    await running('use-stream');
    const abort = new AbortController();
    let count = 0;
    const got = await sse(base, ns, 'GET', '/sandboxes/use-stream/usage', {
      key: api.keys.alice,
      signal: abort.signal,
      onEvent: () => {
        if (++count === 2) abort.abort();
      },
    });
    expect(got.status).toBe(200);
    expect(got.events.map((e) => e.event)).toEqual(['usage', 'usage']);
    const [a, b] = got.events.map((e) => e.data as unknown as Usage & { at: string });
    const gap = Date.parse(b!.at) - Date.parse(a!.at);
    expect(gap).toBeGreaterThan(1_500);
    expect(gap).toBeLessThan(4_000);
    const bob = await api.call('GET', '/sandboxes/use-stream/usage', { key: api.keys.bob });
    expect(bob.status).toBe(403);
    const bad = await api.call('GET', '/sandboxes/use-stream/usage?history=abc', { key: api.keys.alice });
    expect(bad.status).toBe(400);
  }, 180_000);
});

describe.concurrent('idleTimeout counts from the last activity of any kind', () => {
  test('a 60 s exec is never stopped as idle; the sandbox stops about 20 s after it ends', async () => {
    await running('idle-exec', { idleTimeout: '20s' });
    const started = Date.now();
    const done = await sse(base, ns, 'POST', '/sandboxes/idle-exec/exec', {
      body: JSON.stringify({ command: 'sleep 60' }),
      key: api.keys.alice,
    });
    const ended = Date.now();
    expect(done.events.at(-1)).toMatchObject({ event: 'exit', data: { exitCode: 0 } });
    expect(expired('idle-exec')).toBe(false);
    const { at, sandbox } = await expiredAt('idle-exec', 60_000);
    console.log(`exec: ran ${(ended - started) / 1000} s; expired ${(at - ended) / 1000} s after it ended`);
    // Condition times have whole seconds.
    expect(at).toBeGreaterThan(ended + 15_000);
    expect(at).toBeLessThan(ended + 30_000);
    expect(sandbox.status?.activeReasons).toEqual([]);
    expect(Date.parse(sandbox.status!.lastActivityAt!)).toBeGreaterThan(ended - 3_000);
    const c = sandbox.status!.conditions!.find((x) => x.type === 'Expired')!;
    expect(c.reason).toBe('IdleTimeoutExceeded');
    expect(c.message).toMatch(/^stopped after 20s without activity \(idle since \d{4}-.+Z\)$/);
  }, 240_000);

  test('an open terminal keeps it alive; it stops about 20 s after the terminal closes', async () => {
    await running('idle-term', { idleTimeout: '20s' });
    const url = `${base.replace('http', 'ws')}/api/v1/sandboxes/idle-term/terminal?namespace=${ns.name}`;
    const ws = new WebSocket(url, { headers: { 'x-api-key': api.keys.alice } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const opened = Date.now();
    // Open, untouched, for 45 s: more than two idle periods.
    await expect
      .poll(() => api.deps.cache.get(ns.name, 'idle-term')?.status?.activeReasons, { timeout: 40_000 })
      .toEqual(expect.arrayContaining(['terminal']));
    await new Promise((r) => setTimeout(r, Math.max(0, opened + 45_000 - Date.now())));
    expect(expired('idle-term')).toBe(false);
    const closed = new Promise((r) => ws.once('close', r));
    ws.close();
    await closed;
    const gone = Date.now();
    const { at } = await expiredAt('idle-term', 60_000);
    console.log(
      `terminal: open ${(gone - opened) / 1000} s; expired ${(at - gone) / 1000} s after it closed`,
    );
    expect(at).toBeGreaterThan(gone + 15_000);
    expect(at).toBeLessThan(gone + 30_000);
  }, 240_000);

  test('with nothing running it stops on time', async () => {
    const since = await running('idle-none', { idleTimeout: '20s' });
    const { at, sandbox } = await expiredAt('idle-none', 60_000);
    console.log(`nothing running: expired ${(at - since) / 1000} s after it was seen Running`);
    expect(at).toBeGreaterThan(since + 10_000);
    expect(at).toBeLessThan(since + 30_000);
    expect(sandbox.status?.conditions?.find((c) => c.type === 'Expired')?.reason).toBe('IdleTimeoutExceeded');
  }, 240_000);
});
