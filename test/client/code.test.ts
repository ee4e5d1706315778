// The TypeScript client's code-mode methods against the whole stack: exec as JSON and as
// typed SSE events, logs (tail and follow), files and archives streamed both ways, the
// terminal WebSocket, discovery, and the refusals as typed exceptions.
import { createHash, randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ApiError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  SvcClient,
  type ExecEvents,
  type StreamEvent,
} from '../../clients/typescript/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('client-code');
useDevnode(ns);
const template = useClusterTemplate('client-code', ns, {
  command: ['sh', '-c', 'echo booted; i=0; while :; do i=$((i+1)); echo "n $i"; sleep 0.2; done'],
});
useOperator(ns, {
  identity: 'client-code-test',
  logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }),
});

let api: TestApi;
let alice: SvcClient;
let bob: SvcClient;
const box = `cc-${randomBytes(3).toString('hex')}`;

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: 60_000 });
  const base = await api.serve();
  alice = new SvcClient({ baseUrl: base, apiKey: api.keys.alice, namespace: ns.name });
  bob = new SvcClient({ baseUrl: base, apiKey: api.keys.bob, namespace: ns.name });
  await alice.createSandbox({ name: box, templateRef: { name: template } });
  await alice.waitForPhase(box, 'Running', { timeoutMs: 90_000 });
}, 120_000);
afterAll(async () => {
  await api?.close();
}, 30_000);

const text = async (res: Response) => Buffer.from(await res.arrayBuffer()).toString('utf8');

describe('the TypeScript client in a code sandbox', () => {
  test('exec: JSON, and SSE events in order with the exit code; cancel by id', async () => {
    expect(await alice.execSandbox(box, { command: 'echo out; echo err >&2; exit 3' })).toMatchObject({
      exitCode: 3,
      stdout: 'out\n',
      stderr: 'err\n',
      truncated: false,
    });
    const events: StreamEvent<ExecEvents>[] = await (
      await alice.execSandboxStream(box, { command: ['tr', 'a-z', 'A-Z'], stdin: 'hello\n' })
    ).toArray();
    expect(events.map((e) => e.event)).toEqual(['start', 'log', 'exit']);
    expect(events[1]).toEqual({ event: 'log', data: { stream: 'stdout', data: 'HELLO\n' } });
    expect(events[2]).toMatchObject({ event: 'exit', data: { exitCode: 0, reason: 'completed' } });

    const long = await alice.execSandboxStream(box, { command: 'echo ready; sleep 100' });
    const it = long[Symbol.asyncIterator]();
    const start = (await it.next()).value as StreamEvent<ExecEvents>;
    expect(start.event).toBe('start');
    const id = start.event === 'start' ? start.data.invokeId : '';
    expect((await it.next()).value).toEqual({ event: 'log', data: { stream: 'stdout', data: 'ready\n' } });
    expect(await alice.cancelExec(box, id)).toEqual({ invokeId: id, status: 'canceling' });
    const rest: StreamEvent<ExecEvents>[] = [];
    for (let n = await it.next(); !n.done; n = await it.next()) rest.push(n.value);
    expect(rest.at(-1)).toMatchObject({ event: 'exit', data: { exitCode: -1, reason: 'canceled' } });
  });

  test('logs: the tail, then follow until new lines come', async () => {
    const logs = await alice.getSandboxLogs(box);
    const seen = logs.entries.map((e) => e.data).join('');
    expect(seen.startsWith('booted\nn 1\n')).toBe(true);
    expect(logs.entries.every((e) => e.stream === 'stdout')).toBe(true);
    const last = Math.max(...[...seen.matchAll(/n (\d+)/g)].map((m) => Number(m[1])));
    const stop = new AbortController();
    const follow = await alice.followSandboxLogs(box, { signal: stop.signal });
    let out = '';
    for await (const e of follow) {
      out += e.data.data;
      if (out.includes(`n ${last + 2}\n`)) break;
    }
    expect(out).toContain(`n ${last + 1}\n`);
  });

  test('usage: the figures with their history, then a usage event every 2 s; bob is refused', async () => {
    const now = await alice.getSandboxUsage(box, { history: 30 });
    expect(now.cgroup).toBe(true);
    expect(now.processes).toBeGreaterThanOrEqual(2);
    expect(now.workspace.freeBytes).toBeGreaterThan(0);
    expect(now.history!.length).toBeGreaterThan(0);
    const stop = new AbortController();
    const stream = await alice.watchSandboxUsage(box, { signal: stop.signal });
    const seen: string[] = [];
    for await (const e of stream) {
      expect(e.event).toBe('usage');
      seen.push(e.data.at);
      if (seen.length === 2) break;
    }
    stop.abort();
    expect(Date.parse(seen[1]!) - Date.parse(seen[0]!)).toBeGreaterThan(1_500);
    await expect(bob.getSandboxUsage(box)).rejects.toBeInstanceOf(ForbiddenError);
  });

  test('files and archives stream both ways; refusals are typed', async () => {
    const bytes = randomBytes(2 * 1024 * 1024 + 3);
    const stream = new Blob([bytes]).stream();
    const written = await alice.writeFile(box, '/workspace/c/data.bin', stream, { mode: '0640' });
    expect(written).toEqual({
      path: '/workspace/c/data.bin',
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    const read = await alice.readFile(box, '/workspace/c/data.bin');
    expect(Buffer.from(await read.arrayBuffer()).equals(bytes)).toBe(true);
    const part = await alice.readFile(box, '/workspace/c/data.bin', { range: 'bytes=0-9' });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(0, 10))).toBe(true);
    const listing = await alice.listFiles(box, '/workspace/c');
    expect(listing.entries.map((e) => [e.name, e.type, e.size])).toEqual([
      ['data.bin', 'file', bytes.length],
    ]);

    const tar = await alice.downloadArchive(box, '/workspace/c', { format: 'tar' });
    const archive = Buffer.from(await tar.arrayBuffer());
    expect(archive.subarray(0, 100).toString('latin1')).toContain('data.bin');
    expect(await alice.uploadArchive(box, '/workspace/d', archive)).toEqual({
      files: 1,
      bytes: bytes.length,
    });
    expect(
      Buffer.from(await (await alice.readFile(box, '/workspace/d/data.bin')).arrayBuffer()).equals(bytes),
    ).toBe(true);
    await alice.deleteFile(box, '/workspace/d', { recursive: true });

    const outside = await alice.readFile(box, '/etc/passwd').catch((e: unknown) => e);
    expect(outside).toBeInstanceOf(ApiError);
    expect(outside).toMatchObject({ status: 400, code: 'path_outside_workspace' });
    const missing = await alice.readFile(box, '/workspace/nope').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    const denied = await bob.readFile(box, '/workspace/c/data.bin').catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(ForbiddenError);
    expect(
      await text(await alice.readFile(box, '/workspace/c/data.bin', { range: 'bytes=0-0' })),
    ).toHaveLength(1);
  });

  test('terminal: output, a resize, the exit code', async () => {
    const term = await alice.openTerminal(box, { cols: 100, rows: 30 });
    let out = '';
    const decoder = new TextDecoder();
    // Read without terminal escapes (bash's bracketed paste) and carriage returns.
    term.onData(
      (b) =>
        (out += decoder
          .decode(b, { stream: true })
          // eslint-disable-next-line no-control-regex
          .replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, '')
          .replaceAll('\r', '')),
    );
    const until = (re: RegExp) =>
      eventually(() => re.test(out), {
        timeoutMs: 20_000,
        intervalMs: 25,
        describe: () => `${re} in ${out}`,
      });
    term.send('stty size\r');
    await until(/\n30 100\n/);
    term.resize(120, 40);
    term.send('stty size\r');
    await until(/\n40 120\n/);
    term.send('exit 7\r');
    expect(await term.exit).toBe(7);
  });

  test('discovery: templates, the caller, ports; a stopped sandbox refuses exec with 409', async () => {
    const { templates } = await alice.listTemplates();
    expect(templates.map((t) => t.name)).toContain(template);
    expect(await alice.getCurrentUser()).toMatchObject({ sub: 'alice', isAdmin: false });
    expect(await alice.listPorts(box)).toEqual({ ports: [] });
    const other = `cs-${randomBytes(3).toString('hex')}`;
    await alice.createSandbox({ name: other, templateRef: { name: template } });
    await alice.waitForPhase(other, 'Running', { timeoutMs: 90_000 });
    await alice.stopSandbox(other);
    await alice.waitForPhase(other, 'Stopped', { timeoutMs: 60_000 });
    const refused = await alice.execSandbox(other, { command: 'true' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConflictError);
    await alice.deleteSandbox(other);
  }, 180_000);
});
