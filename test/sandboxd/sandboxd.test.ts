import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseParser, type ExitEvent, type RunSpecInput, type SseMessage } from '../../core/index.ts';
import { SandboxdClient } from '../../kube/index.ts';
import { eventually } from '../../stack/index.ts';
import { startSandboxd, type Daemon } from './daemon.ts';

/** How long a local daemon may take to show what a test waits for, read every 25 ms. */
const soon = { timeoutMs: 10_000, intervalMs: 25 };

// sandboxd's contract, black box: the Go binary (dist/sandboxd) over its unix socket.

let dir: string;
let workspace: string;
let socket: string;
let client: SandboxdClient;
let daemon: Daemon;
let seq = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandboxd-'));
  workspace = join(dir, 'workspace');
  await mkdir(workspace);
  daemon = await startSandboxd({
    dir,
    token: 'secret-token',
    workspace,
    args: ['--grace-seconds', '0.5', '--keepalive-seconds', '0.1', '--max-concurrent-invokes', '100'],
  });
  socket = daemon.socket;
  client = daemon.client;
});
afterAll(async () => {
  expect(await daemon.stop()).toBe(0);
  await rm(dir, { recursive: true, force: true });
});

const id = () => `run-${++seq}`;
const sh = (script: string, extra: Partial<RunSpecInput> = {}): RunSpecInput => ({
  runId: id(),
  kind: 'exec',
  argv: ['sh', '-c', script],
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin', F: join(dir, `marker-${seq + 1}`) },
  cwd: workspace,
  ...extra,
});

async function collect(events: AsyncIterable<SseMessage>) {
  const all: SseMessage[] = [];
  for await (const e of events) all.push(e);
  return summarize(all);
}

/** Reads a stream in the background; `all` grows as events arrive. */
function follow(events: AsyncIterable<SseMessage>) {
  const all: SseMessage[] = [];
  const done = (async () => {
    for await (const e of events) all.push(e);
    return summarize(all);
  })();
  return { all, done };
}

function summarize(all: SseMessage[]) {
  const text = (stream: string) =>
    all
      .filter((e) => e.event === 'log')
      .map((e) => JSON.parse(e.data) as { stream: string; data: string })
      .filter((l) => l.stream === stream)
      .map((l) => l.data)
      .join('');
  const exit = JSON.parse(all.at(-1)!.data) as ExitEvent;
  return { all, stdout: text('stdout'), stderr: text('stderr'), exit };
}

async function run(spec: RunSpecInput, stdin?: Buffer) {
  return runWith(client, spec, stdin);
}

async function runWith(c: SandboxdClient, spec: RunSpecInput, stdin?: Buffer) {
  const res = await c.run(spec, stdin);
  expect(res.status).toBe(200);
  return collect(res.events);
}

/** The whole body of a raw request to sandboxd. */
function rawRequest(method: string, path: string, body = ''): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const req = request(
      { socketPath: socket, method, path, headers: { authorization: 'Bearer secret-token' } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(text));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The processes of group `pgid`, as /proc shows them: pid, state, parent, command. */
async function groupMembers(pgid: number): Promise<string> {
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((e) => /^\d+$/.test(e))) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const m = /^\d+ \((.*)\) (\S) (\d+) (\d+)/.exec(stat);
    if (m && Number(m[4]) === pgid) found.push(`${pid} ${m[2]} ppid=${m[3]} (${m[1]})`);
  }
  return found.join('; ') || 'none';
}

const alive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('auth', () => {
  it('answers /healthz to anyone and 401 to a wrong token', async () => {
    expect(await client.health()).toBe(true);
    for (const upgradeRuns of [false, true]) {
      const wrong = new SandboxdClient({ address: `unix:${socket}`, token: 'nope', upgradeRuns });
      expect((await wrong.run(sh('true'))).status).toBe(401);
    }
  });
});

// Each run test twice: sandboxd's 200 answer, and the upgraded form of POST /runs
// (sandboxd/internal/runs/upgrade.go) that the API and the operator ask for.
describe.each([
  ['the 200 answer', false],
  ['the upgraded connection', true],
])('runs over %s', (_form, upgradeRuns) => {
  let client: SandboxdClient;
  beforeAll(() => {
    client = new SandboxdClient({ address: `unix:${socket}`, token: 'secret-token', upgradeRuns });
  });
  const run = (spec: RunSpecInput, stdin?: Buffer) => runWith(client, spec, stdin);

  it('starts with start, ends with exit, in that order', async () => {
    const { all, exit } = await run(sh('echo hi'));
    expect(all[0]!.event).toBe('start');
    expect(JSON.parse(all[0]!.data)).toEqual({
      invokeId: exit.invokeId,
      startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown,
    });
    expect(all.at(-1)!.event).toBe('exit');
    expect(exit).toMatchObject({ exitCode: 0, reason: 'completed' });
  });

  it('passes stdin byte for byte, non-UTF-8 bytes included', async () => {
    const stdin = Buffer.concat([randomBytes(1 << 20), Buffer.from([0xff, 0xfe, 0x00, 0xc3])]);
    const { stdout } = await run(sh('sha256sum'), stdin);
    expect(stdout.split(' ')[0]).toBe(createHash('sha256').update(stdin).digest('hex'));
  });

  it('keeps stdout and stderr apart and in order', async () => {
    const { stdout, stderr } = await run(
      sh('i=0; while [ $i -lt 3000 ]; do i=$((i+1)); echo out$i; echo err$i >&2; done'),
    );
    const want = (p: string) => Array.from({ length: 3000 }, (_, i) => `${p}${i + 1}\n`).join('');
    expect(stdout).toBe(want('out'));
    expect(stderr).toBe(want('err'));
  });

  it('does not split a multi-byte character across log events and coalesces a fast writer', async () => {
    const { all, stdout } = await run(sh("i=0; while [ $i -lt 20000 ]; do i=$((i+1)); printf 'é€😀'; done"));
    expect(stdout).toBe('é€😀'.repeat(20000));
    // 20,000 writes; one event per write would be 20,000 events.
    expect(all.filter((e) => e.event === 'log').length).toBeLessThan(1000);
  });

  it.each([
    ['exit 0', 0],
    ['exit 3', 3],
    ['kill -9 $$', 137],
    ['kill -15 $$', 143],
  ])('reports `%s` as exit code %i', async (script, code) => {
    expect((await run(sh(script))).exit).toMatchObject({ exitCode: code, reason: 'completed' });
  });

  it('reports a program that cannot start with reason error', async () => {
    const { exit, stderr } = await run({
      runId: id(),
      kind: 'exec',
      argv: ['/no/such/program'],
      cwd: workspace,
    });
    expect(exit).toMatchObject({ exitCode: 127, reason: 'error' });
    expect(stderr).toContain('/no/such/program');
  });

  it('cancel delivers SIGTERM to the group; the exit says -1 canceled', async () => {
    const spec = sh('trap "echo term > $F; exit 0" TERM; touch $F.ready; while :; do sleep 0.05; done');
    const marker = spec.env!.F!;
    const res = await client.run(spec);
    const done = collect(res.events);
    // Cancel once the trap is set: a SIGTERM before it would end the shell without a marker.
    await eventually(() => existsSync(`${marker}.ready`), { ...soon, describe: `${marker}.ready` });
    expect(await client.cancel(spec.runId)).toBe(true);
    const { exit } = await done;
    expect(exit).toMatchObject({ exitCode: -1, reason: 'canceled' });
    expect((await readFile(marker, 'utf8')).trim()).toBe('term');
    expect(await client.cancel(spec.runId)).toBe(false);
  });

  it('escalates to SIGKILL when SIGTERM is ignored, leaving no process of the group', async () => {
    // A file of this run's own ($F): the test runs once per form of POST /runs, and the other
    // run's file would be there already, or truncated mid-read by this run's shell.
    const spec = sh(`trap "" TERM; echo $$ > $F; (trap "" TERM; sleep 30) & sleep 30; wait`);
    const pidFile = spec.env!.F!;
    const res = await client.run(spec);
    const done = collect(res.events);
    // The whole line, not the file: the shell creates it before it writes, and a pgid read
    // as 0 would make `kill(-0, 0)` ask about this test's own group, alive forever.
    const line = () => readFile(pidFile, 'utf8').catch(() => '');
    await eventually(line, {
      ...soon,
      until: (l) => /^\d+\n$/.test(l),
      describe: `a pgid line in ${pidFile}`,
    });
    const pgid = Number((await line()).trim());
    expect(pgid).toBeGreaterThan(1);
    expect(await client.cancel(spec.runId)).toBe(true);
    const { exit } = await done;
    expect(exit).toMatchObject({ exitCode: -1, reason: 'canceled' });
    await eventually(() => !alive(pgid), { ...soon, timeoutMs: 5_000, describe: `group ${pgid} gone` }).catch(
      async (err: unknown) => {
        throw new Error(`${(err as Error).message}: left of group ${pgid}: ${await groupMembers(pgid)}`);
      },
    );
  });

  it('a dropped client connection cancels the run with SIGTERM', async () => {
    const spec = sh('trap "echo term > $F; exit 0" TERM; echo ready; while :; do sleep 0.05; done');
    const marker = spec.env!.F!;
    const abort = new AbortController();
    const res = await client.run(spec, undefined, abort.signal);
    const iterator = res.events[Symbol.asyncIterator]();
    for (;;) {
      const next = await iterator.next();
      if (next.done || next.value.event === 'log') break;
    }
    abort.abort();
    await eventually(() => existsSync(marker), { ...soon, describe: marker });
    expect((await readFile(marker, 'utf8')).trim()).toBe('term');
  });

  it('ends a run that outlives its timeout with reason timeout', async () => {
    const { exit } = await run(sh('sleep 30', { timeoutMs: 300 }));
    expect(exit.reason).toBe('timeout');
    expect(exit.durationMs).toBeLessThan(10_000);
  });

  it('sends keepalive comments on an idle stream', async () => {
    const opened = await client.runRaw(sh('sleep 0.6'), Buffer.alloc(0));
    expect(opened.status).toBe(200);
    let raw = '';
    for await (const chunk of opened.stream as AsyncIterable<Buffer>) raw += chunk.toString();
    expect(raw.match(/^: keepalive$/gm)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(raw).toMatch(/event: exit\ndata: \{[^\n]*"reason":"completed"[^\n]*\}\n\n$/);
  });
});

describe('the upgraded form of POST /runs', () => {
  const MAX_UPGRADED_BODY = 17 * 1024 * 1024;
  const specLine = (spec: RunSpecInput) => Buffer.from(`${JSON.stringify(spec)}\n`);

  /** POST /runs asking for `Upgrade: svc-run`: the 101 and every byte after it, or the plain answer. */
  function upgradeRequest(
    body: Buffer,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
    return new Promise((resolve, reject) => {
      const req = request({
        socketPath: socket,
        method: 'POST',
        path: '/runs',
        headers: {
          authorization: 'Bearer secret-token',
          connection: 'Upgrade',
          upgrade: 'svc-run',
          'content-length': String(body.length),
        },
      });
      req.on('upgrade', (res, conn, head) => {
        let text = head.toString();
        conn.on('data', (c: Buffer) => (text += c.toString()));
        conn.on('end', () => resolve({ status: 101, headers: res.headers, text }));
        conn.on('error', reject);
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  const eventsOf = (text: string) => new SseParser().push(text);

  it('answers 101 and streams the run on the connection, which sandboxd closes after exit', async () => {
    const r = await upgradeRequest(Buffer.concat([specLine(sh('cat')), Buffer.from('hello\n')]));
    expect(r.status).toBe(101);
    expect(r.headers).toMatchObject({
      upgrade: 'svc-run',
      'content-type': 'text/event-stream; charset=utf-8',
    });
    const events = eventsOf(r.text);
    expect(events.map((e) => e.event)).toEqual(['start', 'log', 'exit']);
    expect(JSON.parse(events[1]!.data)).toEqual({ stream: 'stdout', data: 'hello\n' });
    expect(JSON.parse(events[2]!.data)).toMatchObject({ exitCode: 0, reason: 'completed' });
  });

  it('refuses with the plain answers: a bad spec 400, a run id in flight 409', async () => {
    const bad = await upgradeRequest(Buffer.from('not json\n'));
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toEqual({
      error: 'bad_request',
      message: 'bad run spec: not JSON of the expected shape',
    });

    const spec = sh('sleep 30');
    const first = await client.run(spec);
    expect(first.status).toBe(200);
    const again = await upgradeRequest(specLine(spec));
    expect(again.status).toBe(409);
    expect(JSON.parse(again.text)).toEqual({
      error: 'conflict',
      message: `run ${spec.runId} is already in flight`,
    });
    expect(await client.cancel(spec.runId)).toBe(true);
    expect((await collect(first.events)).exit.reason).toBe('canceled');
  });

  it.each([
    [MAX_UPGRADED_BODY, 101],
    [MAX_UPGRADED_BODY + 1, 200],
  ])('takes a body of %i bytes whole, answering %i', async (size, status) => {
    const line = specLine(sh('sha256sum'));
    const stdin = randomBytes(size - line.length);
    const r = await upgradeRequest(Buffer.concat([line, stdin]));
    expect(r.status).toBe(status);
    const logs = eventsOf(r.text).filter((e) => e.event === 'log');
    const stdout = logs.map((e) => (JSON.parse(e.data) as { data: string }).data).join('');
    expect(stdout.split(' ')[0]).toBe(createHash('sha256').update(stdin).digest('hex'));
  });
});

describe('attaching to an install run', () => {
  const install = (script: string) => sh(script, { kind: 'install' });
  const notFound = { error: 'not_found', message: expect.any(String) as unknown };

  it('replays what the run sent so far, then follows it: the same events as the POST', async () => {
    const spec = install(
      'echo o1; echo e1 >&2; while [ ! -e $F ]; do sleep 0.02; done; ' +
        'for i in 2 3 4; do echo o$i; sleep 0.02; echo e$i >&2; sleep 0.02; done; exit 4',
    );
    const posted = follow((await client.run(spec)).events);
    // Attach once output has gone out, so the replay and the live part both carry some.
    await eventually(() => posted.all.some((e) => e.event === 'log'), { ...soon, describe: 'a log event' });
    const attached = await client.attach(spec.runId);
    expect(attached.status).toBe(200);
    expect(attached.headers['content-type']).toMatch(/^text\/event-stream/);
    const reading = collect(attached.events);
    await writeFile(spec.env!.F!, '');
    const [want, got] = await Promise.all([posted.done, reading]);
    expect(want.stdout).toBe('o1\no2\no3\no4\n');
    expect(want.stderr).toBe('e1\ne2\ne3\ne4\n');
    expect(got.all[0]).toEqual(want.all[0]);
    expect(got.all[0]!.event).toBe('start');
    expect(got.stdout).toBe(want.stdout);
    expect(got.stderr).toBe(want.stderr);
    expect(got.exit).toEqual(want.exit);
    expect(got.exit).toMatchObject({ exitCode: 4, reason: 'completed' });
    // Both carry the very frames the run's one writer sent.
    expect(got.all).toEqual(want.all);
  });

  it('replays a finished run from start to exit', async () => {
    const spec = install('echo out; echo err >&2; sleep 0.05; echo more; exit 2');
    const want = await run(spec);
    const attached = await client.attach(spec.runId);
    expect(attached.status).toBe(200);
    const got = await collect(attached.events);
    expect(got.all).toEqual(want.all);
    expect(got).toMatchObject({ stdout: 'out\nmore\n', stderr: 'err\n', exit: { exitCode: 2 } });
  });

  it('answers 404 for an unknown run; an invoke is readable in flight and after, as an install is', async () => {
    const unknown = await client.attach('no-such-run');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(notFound);

    const spec = sh('while [ ! -e $F ]; do sleep 0.02; done', { kind: 'invoke' });
    const posted = follow((await client.run(spec)).events);
    await eventually(async () => (await client.runs()).some((r) => r.runId === spec.runId), {
      ...soon,
      describe: `run ${spec.runId} listed`,
    });
    const inFlight = await client.attach(spec.runId);
    expect(inFlight.status).toBe(200);
    const attached = collect(inFlight.events);
    await writeFile(spec.env!.F!, '');
    const { exit } = await posted.done;
    expect(exit.reason).toBe('completed');
    expect((await attached).exit).toEqual(exit);
    expect((await client.attach(spec.runId)).status).toBe(200);
  });

  it('a reader that goes away leaves the run running', async () => {
    const spec = install(
      'trap "echo term > $F.term; exit 0" TERM; echo ready; while [ ! -e $F ]; do sleep 0.02; done; echo after',
    );
    const gate = spec.env!.F!;
    const posted = follow((await client.run(spec)).events);
    const abort = new AbortController();
    const attached = await client.attach(spec.runId, abort.signal);
    const iterator = attached.events[Symbol.asyncIterator]();
    for (;;) {
      const next = await iterator.next();
      if (next.done || next.value.event === 'log') break;
    }
    abort.abort();
    // Another reader still gets the whole run, to the same exit.
    const second = await client.attach(spec.runId);
    expect(second.status).toBe(200);
    const secondDone = collect(second.events);
    expect((await client.runs()).map((r) => r.runId)).toContain(spec.runId);
    await writeFile(gate, '');
    const { exit, stdout } = await posted.done;
    expect(exit).toMatchObject({ exitCode: 0, reason: 'completed' });
    expect(stdout).toBe('ready\nafter\n');
    expect((await secondDone).exit).toEqual(exit);
    expect(existsSync(`${gate}.term`)).toBe(false);
  });

  it('sends keepalive comments to an attached reader', async () => {
    const spec = install('sleep 0.6');
    const posted = follow((await client.run(spec)).events);
    await eventually(() => posted.all.length > 0, { ...soon, describe: 'an event' });
    const raw = await rawRequest('GET', `/runs/${spec.runId}/events`);
    expect(raw.match(/^: keepalive$/gm)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(raw).toMatch(/event: exit\n/);
    await posted.done;
  });

  it('keeps the last 8 MiB of a run, saying how much earlier output it dropped', async () => {
    const total = 12_000_000;
    const spec = install(`head -c ${total} /dev/zero | tr '\\0' a; echo end >&2`);
    const want = await run(spec);
    expect(want.stdout.length).toBe(total);
    const got = await collect((await client.attach(spec.runId)).events);
    expect(got.all[0]).toEqual(want.all[0]);
    const notice = /^\[sandboxd: (\d+) bytes of earlier output dropped\]\n/.exec(got.stderr);
    expect(notice).not.toBeNull();
    expect(JSON.parse(got.all[1]!.data)).toEqual({ stream: 'stderr', data: notice![0] });
    expect(Number(notice![1]) + got.stdout.length).toBe(total);
    expect(got.stdout.length).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(got.stdout.length).toBeGreaterThan(7 * 1024 * 1024);
    expect(got.stderr.slice(notice![0].length)).toBe('end\n');
    expect(got.exit).toEqual(want.exit);
  });

  it('forgets all but the 16 most recently finished install runs', async () => {
    const specs = Array.from({ length: 17 }, () => install('true'));
    for (const spec of specs) await run(spec);
    expect((await client.attach(specs[0]!.runId)).status).toBe(404);
    for (const spec of specs.slice(1)) {
      const attached = await client.attach(spec.runId);
      expect(attached.status).toBe(200);
      expect((await collect(attached.events)).exit.invokeId).toBe(spec.runId);
    }
  });
});

describe('the concurrency cap', () => {
  it('lets exactly N invokes in and answers the rest 429 with Retry-After and the exact body', async () => {
    const cappedDaemon = await startSandboxd({
      dir,
      name: 'capped',
      token: 't',
      workspace,
      args: ['--grace-seconds', '0.2', '--max-concurrent-invokes', '1'],
    });
    const c = cappedDaemon.client;
    try {
      await c.setMaxConcurrentInvokes(2);
      const gate = join(dir, 'gate');
      const attempts = await Promise.all(
        Array.from({ length: 5 }, () =>
          c.run({ ...sh(`while [ ! -e ${gate} ]; do sleep 0.02; done`), kind: 'invoke' }),
        ),
      );
      const accepted = attempts.filter((r) => r.status === 200);
      const refused = attempts.filter((r) => r.status === 429);
      expect(accepted).toHaveLength(2);
      expect(refused).toHaveLength(3);
      for (const r of refused) {
        expect(r.headers['retry-after']).toBe('5');
        expect(r.body).toEqual({
          error: 'concurrency_exceeded',
          limit: 2,
          inflight: 2,
          message:
            'this sandbox runs at most 2 concurrent invokes and 2 are in flight; retry after 5 seconds',
        });
      }
      expect((await c.run({ ...sh('true'), kind: 'exec' })).status).toBe(200); // exec is not capped
      await writeFile(gate, '');
      for (const r of accepted) expect((await collect(r.events)).exit.reason).toBe('completed');
    } finally {
      await cappedDaemon.stop();
    }
  });
});

describe('files', () => {
  const file = (path: string, content: Buffer | string) => ({ path, content: Buffer.from(content) });

  it('writes a batch atomically with parents created and modes kept', async () => {
    const res = await client.writeFiles([
      file(`${workspace}/a/b/c.txt`, 'hello'),
      { ...file(`${workspace}/run.sh`, '#!/bin/sh\necho ok\n'), mode: 0o755 },
    ]);
    expect(res).toEqual({ status: 200, body: { written: 2 } });
    expect(await readFile(join(workspace, 'a/b/c.txt'), 'utf8')).toBe('hello');
    expect((await run(sh(`${workspace}/run.sh`))).stdout).toBe('ok\n');
  });

  it.each([
    ['a path climbing out with ..', () => `${workspace}/../escaped.txt`],
    ['an absolute path outside the root', () => join(dir, 'outside.txt')],
    ['a relative path', () => 'relative.txt'],
    ['a symlink that escapes', () => `${workspace}/link/escaped.txt`],
  ])('refuses %s and writes nothing', async (_name, path) => {
    await mkdir(join(dir, 'elsewhere'), { recursive: true });
    await symlink(join(dir, 'elsewhere'), join(workspace, 'link')).catch(() => undefined);
    const before = await readdir(workspace);
    const res = await client.writeFiles([file(`${workspace}/ok-first.txt`, 'x'), file(path(), 'pwned')]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'path_refused' });
    expect(await readdir(workspace)).toEqual(before);
    expect(await readdir(join(dir, 'elsewhere'))).toEqual([]);
    expect(existsSync(join(dir, 'escaped.txt')) || existsSync(join(dir, 'outside.txt'))).toBe(false);
  });

  it('accepts 200 files and refuses 201, writing none of them', async () => {
    const many = (n: number, prefix: string) =>
      Array.from({ length: n }, (_, i) => file(`${workspace}/${prefix}/${i}`, 'x'));
    expect((await client.writeFiles(many(200, 'two-hundred'))).status).toBe(200);
    const refused = await client.writeFiles(many(201, 'two-hundred-one'));
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ error: 'files_refused', codes: ['configure_too_many_files'] });
    expect(existsSync(join(workspace, 'two-hundred-one'))).toBe(false);
  });

  it('accepts 32 MiB and refuses 32 MiB + 1 byte', async () => {
    const MiB = 1024 * 1024;
    expect((await client.writeFiles([file(`${workspace}/big`, Buffer.alloc(32 * MiB, 1))])).status).toBe(200);
    const refused = await client.writeFiles([file(`${workspace}/too-big`, Buffer.alloc(32 * MiB + 1, 1))]);
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ codes: ['configure_file_too_large'] });
    expect(existsSync(join(workspace, 'too-big'))).toBe(false);
  });
});
