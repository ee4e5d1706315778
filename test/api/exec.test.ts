// Exec end to end: the API (in-process, served on 127.0.0.1), the operator, devnode and the
// real sandboxd, against the real control plane. Every test owns its sandboxes.
import { createHash, randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ForbiddenError, SvcClient } from '../../clients/typescript/index.ts';
import { Annotations, type Sandbox } from '../../core/index.ts';
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
import { SLOW, createAs, output, reachable, sse, type Streamed } from './code-mode.ts';

const ns = useNamespace('exec');
useDevnode(ns);
/** The template's own process: silent, so its logs hold only what a test writes to it. */
const TEMPLATE_COMMAND = 'sleep 86400';
const template = useClusterTemplate('exec', ns, {
  command: TEMPLATE_COMMAND.split(' '),
  agent: { maxConcurrentInvokes: 1 },
});
useOperator(ns, { identity: 'exec-test', logger: pino({ level: 'silent' }) });
let api: TestApi;
let base: string;

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: SLOW });
  base = await api.serve();
}, SLOW);
afterAll(async () => api?.close(), 30_000);

/** A Running sandbox of alice's, its sandboxd reachable. */
async function running(name: string, spec: object = {}): Promise<void> {
  await createAs(api, api.keys.alice, { name, templateRef: { name: template }, ...spec });
  await waitForSandboxPhase(ns, name, 'Running', SLOW);
  await reachable(api, ns, name);
}

/** `POST /exec` as JSON (no Accept: text/event-stream). */
async function execJson(name: string, body: object | string, key = api.keys.alice, query = '') {
  const res = await api.call('POST', `/sandboxes/${name}/exec${query}`, { key, body });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const execStream = (name: string, body: object, opts: Parameters<typeof sse>[4] = {}) =>
  sse(base, ns, 'POST', `/sandboxes/${name}/exec`, {
    body: JSON.stringify(body),
    key: api.keys.alice,
    ...opts,
  });

/** A sandbox file's text, read with an exec. */
async function readFile(name: string, path: string): Promise<string> {
  const res = await execJson(name, { command: ['cat', path] });
  return res.body.exitCode === 0 ? String(res.body.stdout) : '';
}

/** A command that records its SIGTERM in `marker`, says `ready`, and waits for ever. */
const trapped = (marker: string) =>
  `trap 'echo term > ${marker}; exit 143' TERM; echo ready; while :; do sleep 0.05; done`;

/** Starts an SSE exec; resolves once it said `ready` (its id known) or was answered. */
function started(name: string, command: string) {
  const abort = new AbortController();
  let execId = '';
  let ready!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  const done = execStream(
    name,
    { command },
    {
      signal: abort.signal,
      onEvent: (m) => {
        if (m.event === 'start') execId = (JSON.parse(m.data) as { invokeId: string }).invokeId;
        if (m.event === 'log') ready();
      },
    },
  ).finally(() => ready());
  return { abort, done, ready: isReady, id: () => execId };
}

describe('exec', () => {
  beforeAll(async () => running('ex-main', { env: [{ name: 'GREETING', value: 'from-spec' }] }), 300_000);

  test('JSON: exit codes 0 and 3, stdout and stderr apart, stdin, argv, env, workingDir', async () => {
    const zero = await execJson('ex-main', { command: 'echo hello' });
    expect(zero.status).toBe(200);
    expect(zero.body).toEqual({
      exitCode: 0,
      stdout: 'hello\n',
      stderr: '',
      durationMs: expect.any(Number) as number,
      reason: 'completed',
      truncated: false,
    });
    expect(zero.headers.get('x-exec-id')).toMatch(/^exec-/);

    const three = await execJson('ex-main', { command: 'echo out; echo err >&2; exit 3' });
    expect(three.body).toMatchObject({ exitCode: 3, stdout: 'out\n', stderr: 'err\n', reason: 'completed' });

    const stdin = randomBytes(4096).toString('base64');
    const piped = await execJson('ex-main', { command: 'sha256sum | cut -d" " -f1', stdin });
    expect(piped.body.stdout).toBe(`${createHash('sha256').update(stdin).digest('hex')}\n`);

    const argv = await execJson('ex-main', { command: ['printf', '[%s]', 'two words', '$HOME'] });
    expect(argv.body).toMatchObject({ exitCode: 0, stdout: '[two words][$HOME]' });

    // The sandbox's own environment (spec.env) and the call's.
    const env = await execJson('ex-main', {
      command: 'echo "$GREETING $EXTRA"',
      env: { EXTRA: 'from-call' },
    });
    expect(env.body.stdout).toBe('from-spec from-call\n');

    expect((await execJson('ex-main', { command: 'mkdir -p /workspace/sub/dir' })).body.exitCode).toBe(0);
    const cwd = await execJson('ex-main', { command: 'pwd', workingDir: '/workspace/sub/dir' });
    expect(cwd.body.stdout).toBe('/workspace/sub/dir\n');
    const relative = await execJson('ex-main', { command: 'pwd', workingDir: 'sub' });
    expect(relative.body.stdout).toBe('/workspace/sub\n');
    const home = await execJson('ex-main', { command: 'pwd' });
    expect(home.body.stdout).toBe('/workspace\n');
  }, 120_000);

  test('SSE: start, log and exit events; exit codes 0 and 3; stdin', async () => {
    const ok = await execStream('ex-main', { command: 'cat; echo; echo oops >&2', stdin: 'piped in' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(ok.events[0]?.event).toBe('start');
    expect(ok.events.at(-1)).toEqual({
      event: 'exit',
      data: {
        invokeId: ok.events[0]?.data.invokeId,
        exitCode: 0,
        durationMs: expect.any(Number) as number,
        reason: 'completed',
      },
    });
    expect(output(ok)).toBe('piped in\n');
    expect(output(ok, 'stderr')).toBe('oops\n');
    const three = await execStream('ex-main', { command: 'exit 3' });
    expect(three.events.map((e) => e.event)).toEqual(['start', 'exit']);
    expect(three.events[1]?.data).toMatchObject({ exitCode: 3, reason: 'completed' });
  }, 60_000);

  test('a timeout ends the command: seconds as a number or a duration, JSON and SSE', async () => {
    const json = await execJson('ex-main', { command: 'sleep 30', timeout: 1 });
    expect(json.body).toMatchObject({ exitCode: 143, reason: 'timeout' });
    expect(json.body.durationMs).toBeLessThan(25_000);
    const streamed = await execStream('ex-main', { command: 'echo begun; sleep 30', timeout: '1s' });
    expect(output(streamed)).toBe('begun\n');
    expect(streamed.events.at(-1)?.data).toMatchObject({ exitCode: 143, reason: 'timeout' });
  }, 90_000);

  test('cancel by id: SIGTERM reaches the command, the exit says canceled', async () => {
    const run = started('ex-main', trapped('/workspace/cancel.marker'));
    await run.ready;
    const cancel = await api.call('POST', '/sandboxes/ex-main/exec/cancel', {
      key: api.keys.alice,
      body: { invokeId: run.id() },
    });
    expect(cancel.status).toBe(202);
    expect(await cancel.json()).toEqual({ invokeId: run.id(), status: 'canceling' });
    const done = await run.done;
    expect(done.events.at(-1)?.data).toMatchObject({ exitCode: -1, reason: 'canceled' });
    expect(await readFile('ex-main', '/workspace/cancel.marker')).toBe('term\n');

    const again = await api.call('POST', '/sandboxes/ex-main/exec/cancel', {
      key: api.keys.alice,
      body: { invokeId: run.id() },
    });
    expect(again.status).toBe(404);
    const bad = await api.call('POST', '/sandboxes/ex-main/exec/cancel', { key: api.keys.alice, body: {} });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request', fields: [{ path: 'invokeId' }] });
  }, 60_000);

  test('a client that disconnects ends its command with SIGTERM (SSE and JSON)', async () => {
    const run = started('ex-main', trapped('/workspace/sse-gone.marker'));
    await run.ready;
    run.abort.abort();
    await run.done;
    await eventually(async () => (await readFile('ex-main', '/workspace/sse-gone.marker')) === 'term\n', {
      timeoutMs: 30_000,
      describe: () => 'the SSE exec recorded its SIGTERM',
    });

    // JSON: the answer only comes at the end, so the command says it runs through a file.
    const abort = new AbortController();
    const pending = fetch(`${base}/api/v1/sandboxes/ex-main/exec?namespace=${ns.name}`, {
      method: 'POST',
      headers: { 'x-api-key': api.keys.alice, 'content-type': 'application/json' },
      body: JSON.stringify({
        command: `trap 'echo term > /workspace/json-gone.marker; exit 143' TERM; echo up > /workspace/json-up; while :; do sleep 0.05; done`,
      }),
      signal: abort.signal,
    }).catch((err: unknown) => err);
    await eventually(async () => (await readFile('ex-main', '/workspace/json-up')) === 'up\n', {
      timeoutMs: 30_000,
      describe: () => 'the JSON exec started',
    });
    abort.abort();
    expect(await pending).toBeInstanceOf(Error);
    await eventually(async () => (await readFile('ex-main', '/workspace/json-gone.marker')) === 'term\n', {
      timeoutMs: 30_000,
      describe: () => 'the JSON exec recorded its SIGTERM',
    });
  }, 90_000);

  test('stdout and stderr are kept up to 10 MiB each, and the command still runs to its end', async () => {
    const MiB = 1024 * 1024;
    const res = await execJson('ex-main', {
      command: `head -c ${12 * MiB} /dev/zero | tr '\\0' a; printf 'é%.0s' $(seq 1 10) >&2; echo finished > /workspace/big.done`,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      exitCode: 0,
      reason: 'completed',
      truncated: true,
      stderr: 'é'.repeat(10),
    });
    const stdout = String(res.body.stdout);
    expect(stdout.length).toBe(10 * MiB);
    expect(/^a+$/.test(stdout)).toBe(true);
    expect(await readFile('ex-main', '/workspace/big.done')).toBe('finished\n');
    // A character the cut falls inside is left out whole.
    const multi = await execJson('ex-main', {
      command: `head -c ${10 * MiB - 1} /dev/zero | tr '\\0' a; printf 'é'`,
    });
    expect(multi.body.truncated).toBe(true);
    expect(Buffer.byteLength(String(multi.body.stdout))).toBe(10 * MiB - 1);
  }, 120_000);

  test('bad input is a 400 naming the field; the workspace confines workingDir', async () => {
    const cases: [object | string, string][] = [
      [{}, 'command'],
      [{ command: '' }, 'command'],
      [{ command: [] }, 'command'],
      [{ command: 'true', timeout: -1 }, 'timeout'],
      [{ command: 'true', timeout: 'soon' }, 'timeout'],
      [{ command: 'true', env: { 'BAD-NAME': 'x' } }, 'env.BAD-NAME'],
      [{ command: 'true', env: { OK: 1 } }, 'env.OK'],
      [{ command: 'true', stdin: 5 }, 'stdin'],
      [{ command: 'true', shell: 'bash' }, ''],
    ];
    for (const [body, field] of cases) {
      const res = await execJson('ex-main', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_request');
      expect((res.body.fields as { path: string }[]).map((f) => f.path)).toContain(field);
    }
    const notJson = await execJson('ex-main', '{"command":');
    expect(notJson).toMatchObject({ status: 400, body: { error: 'bad_request' } });
    for (const workingDir of ['/etc', '../etc', '/workspace/../etc', '/workspacex']) {
      const res = await execJson('ex-main', { command: 'touch escaped', workingDir });
      expect(res.status, workingDir).toBe(400);
      expect(res.body).toMatchObject({ error: 'path_outside_workspace', fields: [{ path: 'workingDir' }] });
    }
    const unknown = await execJson('ex-main', { command: 'true' }, api.keys.alice, '?follow=true');
    expect(unknown.status).toBe(400);
    expect(String(unknown.body.message)).toMatch(/follow/);
  }, 60_000);

  test('one SandboxExec Event per exec with actor, exit code and duration, never argv or stdin; metrics', async () => {
    const secret = `s3cr3t-${randomBytes(4).toString('hex')}`;
    const res = await execJson('ex-main', { command: `echo ${secret} >/dev/null; exit 4`, stdin: secret });
    expect(res.body.exitCode).toBe(4);
    const id = res.headers.get('x-exec-id')!;
    let message = '';
    await eventually(
      async () => {
        const list = await ns.core.listNamespacedEvent({ namespace: ns.name });
        const event = list.items.find((e) => e.reason === 'SandboxExec' && e.message?.includes(id));
        message = event?.message ?? '';
        return Boolean(event && event.metadata.annotations?.['svc.io/actor'] === 'alice');
      },
      { timeoutMs: 30_000, describe: () => `the SandboxExec Event of ${id}` },
    );
    expect(message).toMatch(new RegExp(`^exec ${id} by alice: completed, exit code 4, \\d+ ms$`));
    expect(message).not.toContain(secret);
    const audit = await api.call('GET', `/audit/events?sandbox=ex-main&reason=SandboxExec`, {
      key: api.keys.alice,
    });
    const items = ((await audit.json()) as { items: { message: string; actor: string }[] }).items;
    expect(items.some((i) => i.message.includes(id) && i.actor === 'alice')).toBe(true);
    const metrics = await api.deps.metrics.registry.metrics();
    expect(metrics).toMatch(
      new RegExp(`svc_exec_requests_total\\{template="[^"]*${template}",outcome="failed"\\} \\d+`),
    );
    expect(metrics).toMatch(/svc_exec_duration_seconds_count\{template="[^"]*",outcome="completed"\} \d+/);
  }, 60_000);

  test('the 33rd concurrent exec is refused with 429 and Retry-After; invokes keep their own cap', async () => {
    await createAs(api, api.keys.alice, { name: 'ex-cap', mode: 'agent', templateRef: { name: template } });
    await waitForSandboxPhase(ns, 'ex-cap', 'Running', SLOW);
    await reachable(api, ns, 'ex-cap');
    const configured = await sse(base, ns, 'POST', '/sandboxes/ex-cap/configure', {
      key: api.keys.alice,
      body: JSON.stringify({ files: [], entrypoint: ['sh', '-c', 'echo invoked'] }),
    });
    expect(configured.events.at(-1)?.event).toBe('result');

    const runs = Array.from({ length: 32 }, () =>
      started('ex-cap', `trap 'exit 0' TERM; echo ready; while :; do sleep 0.2; done`),
    );
    try {
      await Promise.all(runs.map((r) => r.ready));
      expect(runs.every((r) => r.id() !== '')).toBe(true);
      const over = await execJson('ex-cap', { command: 'true' });
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toBe('5');
      expect(over.body).toEqual({
        error: 'concurrency_exceeded',
        limit: 32,
        inflight: 32,
        message: 'this sandbox runs at most 32 concurrent execs and 32 are in flight; retry after 5 seconds',
      });
      // maxConcurrentInvokes is 1, and 32 execs take none of it.
      const invoked = await sse(base, ns, 'POST', '/sandboxes/ex-cap/invoke', {
        key: api.keys.alice,
        body: '',
      });
      expect(invoked.status).toBe(200);
      expect(output(invoked)).toBe('invoked\n');
    } finally {
      for (const r of runs) r.abort.abort();
      await Promise.all(runs.map((r) => r.done));
    }
    await eventually(async () => (await execJson('ex-cap', { command: 'true' })).status === 200, {
      timeoutMs: 30_000,
      describe: () => 'an exec admitted again once the 32 ended',
    });
  }, 300_000);

  test('a user over limits.perUserConcurrency gets 429 with Retry-After; another user is not limited; every exit frees a slot', async () => {
    // A second API on the same cluster, with a cap of 2 calls in flight per user.
    const capped = await startTestApi(ns, { statusWaitMs: SLOW, perUserConcurrency: 2 });
    const cappedBase = await capped.serve();
    const alice = capped.keys.alice;
    const hold = () => {
      const abort = new AbortController();
      let ready!: () => void;
      const isReady = new Promise<void>((r) => (ready = r));
      const done = sse(cappedBase, ns, 'POST', '/sandboxes/ex-main/exec', {
        body: JSON.stringify({ command: 'echo ready; while :; do sleep 0.05; done' }),
        key: alice,
        signal: abort.signal,
        onEvent: (m) => m.event === 'log' && ready(),
      })
        .catch(() => undefined)
        .finally(() => ready());
      return { abort, done, ready: isReady };
    };
    // Over real HTTP, as a client calls: a slot is held until Node's response closes.
    const call = async (method: string, path: string, key: string, body?: object | string) => {
      const res = await fetch(
        `${cappedBase}/api/v1${path}${path.includes('?') ? '&' : '?'}namespace=${ns.name}`,
        {
          method,
          headers: {
            'x-api-key': key,
            ...(typeof body === 'object' ? { 'content-type': 'application/json' } : {}),
          },
          ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        },
      );
      return { status: res.status, headers: res.headers, text: await res.text() };
    };
    try {
      // Refusals and ended calls give their slot back: far more of them than the cap.
      const put = await call('PUT', '/sandboxes/ex-main/files/workspace/cap.txt', alice, 'capped');
      expect(put.status, put.text).toBe(201);
      for (let i = 0; i < 4; i++) {
        expect((await call('POST', '/sandboxes/ex-main/exec', alice, { command: 42 })).status).toBe(400);
        expect((await call('POST', '/sandboxes/ex-main/exec', alice, { command: 'true' })).status).toBe(200);
        expect((await call('GET', '/sandboxes/ex-main/files/workspace/cap.txt', alice)).status).toBe(200);
      }
      const held = [hold(), hold()];
      await Promise.all(held.map((h) => h.ready));
      for (const [method, path, body] of [
        ['POST', '/sandboxes/ex-main/exec', { command: 'true' }],
        ['GET', '/sandboxes/ex-main/files/workspace/cap.txt', undefined],
        ['GET', '/sandboxes/ex-main/archive?path=/workspace', undefined],
      ] as const) {
        const over = await call(method, path, alice, body);
        expect(over.status, path).toBe(429);
        expect(over.headers.get('retry-after')).toBe('5');
        expect(JSON.parse(over.text)).toEqual({
          error: 'concurrency_exceeded',
          limit: 2,
          inflight: 2,
          message:
            'you have 2 calls in flight (exec, invoke, configure and file transfers count), the most one user may have at once; retry after 5 seconds',
        });
      }
      // The admin is another user: not limited by alice's calls, on alice's own sandbox.
      const admin = await call('POST', '/sandboxes/ex-main/exec', capped.keys.admin, {
        command: 'echo root',
      });
      expect(admin.status).toBe(200);
      // A client that goes away frees its slot.
      held[0]!.abort.abort();
      await held[0]!.done;
      await eventually(
        async () =>
          (await call('POST', '/sandboxes/ex-main/exec', alice, { command: 'true' })).status === 200,
        { timeoutMs: 30_000, describe: () => "alice's exec admitted once one of hers went away" },
      );
      held[1]!.abort.abort();
      await held[1]!.done;
    } finally {
      await capped.close();
    }
  }, 120_000);

  test('owner or admin: bob gets 403 on every route; anonymous 401; 404 for no sandbox', async () => {
    const routes: [string, string, object | undefined][] = [
      ['POST', '/sandboxes/ex-main/exec', { command: 'true' }],
      ['POST', '/sandboxes/ex-main/exec/cancel', { invokeId: 'exec-x' }],
      ['GET', '/sandboxes/ex-main/logs', undefined],
      ['GET', '/sandboxes/ex-main/logs?follow=true', undefined],
    ];
    for (const [method, path, body] of routes) {
      const bob = await api.call(method, path, { key: api.keys.bob, ...(body ? { body } : {}) });
      expect(bob.status, `${method} ${path}`).toBe(403);
      expect(await bob.json()).toMatchObject({ error: 'forbidden' });
      expect((await api.call(method, path, body ? { body } : {})).status).toBe(401);
      const missing = await api.call(method, path.replace('ex-main', 'ex-nowhere'), {
        key: api.keys.alice,
        ...(body ? { body } : {}),
      });
      expect(missing.status).toBe(404);
    }
    const admin = await execJson('ex-main', { command: 'echo admin' }, api.keys.admin);
    expect(admin.body).toMatchObject({ exitCode: 0, stdout: 'admin\n' });
  }, 60_000);

  test('409 on every route while the sandbox is Stopped', async () => {
    await createAs(api, api.keys.alice, {
      name: 'ex-parked',
      templateRef: { name: template },
      stopped: true,
    });
    await waitForSandboxPhase(ns, 'ex-parked', 'Stopped', SLOW);
    const routes: [string, string, object | undefined][] = [
      ['POST', '/sandboxes/ex-parked/exec', { command: 'true' }],
      ['POST', '/sandboxes/ex-parked/exec/cancel', { invokeId: 'exec-x' }],
      ['GET', '/sandboxes/ex-parked/logs', undefined],
    ];
    for (const [method, path, body] of routes) {
      const res = await api.call(method, path, { key: api.keys.alice, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(409);
      expect(await res.json()).toMatchObject({ error: 'not_running', phase: 'Stopped' });
    }
    const streamed = await execStream('ex-parked', { command: 'true' });
    expect(streamed).toMatchObject({ status: 409, body: { error: 'not_running' } });
  }, 300_000);

  test('an exec counts as activity for idleTimeout', async () => {
    await createAs(api, api.keys.alice, {
      name: 'ex-idle',
      templateRef: { name: template },
      idleTimeout: '1h',
    });
    const sandbox: Sandbox = await waitForSandboxPhase(ns, 'ex-idle', 'Running', SLOW);
    expect(sandbox.metadata.annotations?.[Annotations.lastActivity]).toBeUndefined();
    await reachable(api, ns, 'ex-idle');
    const before = Date.now();
    expect((await execJson('ex-idle', { command: 'true' })).status).toBe(200);
    let seen = '';
    await eventually(
      async () => {
        const s = (await api.deps.sandboxes.read(ns.name, 'ex-idle')) as Sandbox;
        seen = s.metadata.annotations?.[Annotations.lastActivity] ?? '';
        return Date.parse(seen) >= before - 1000;
      },
      { timeoutMs: 30_000, describe: () => `last-activity after the exec (saw ${seen || 'none'})` },
    );
  }, 300_000);
});

describe('the TypeScript client', () => {
  test('execSandbox, execSandboxStream (an async iterator), cancelExec, getSandboxLogs, followSandboxLogs', async () => {
    const alice = new SvcClient({ baseUrl: base, apiKey: api.keys.alice, namespace: ns.name });
    const bob = new SvcClient({ baseUrl: base, apiKey: api.keys.bob, namespace: ns.name });
    const result = await alice.execSandbox('ex-main', { command: 'echo ts; exit 3', stdin: 'unused' });
    expect(result).toMatchObject({
      exitCode: 3,
      stdout: 'ts\n',
      stderr: '',
      reason: 'completed',
      truncated: false,
    });
    await expect(bob.execSandbox('ex-main', { command: 'true' })).rejects.toBeInstanceOf(ForbiddenError);

    const names: string[] = [];
    let id = '';
    let canceled = false;
    for await (const e of await alice.execSandboxStream('ex-main', {
      command: trapped('/workspace/ts.marker'),
    })) {
      names.push(e.event);
      if (e.event === 'start') id = e.data.invokeId;
      if (e.event === 'log' && e.data.data === 'ready\n' && !canceled) {
        canceled = true;
        expect(await alice.cancelExec('ex-main', id)).toEqual({ invokeId: id, status: 'canceling' });
      }
      if (e.event === 'exit')
        expect(e.data).toMatchObject({ invokeId: id, exitCode: -1, reason: 'canceled' });
    }
    expect(names[0]).toBe('start');
    expect(names.at(-1)).toBe('exit');

    // The default template's process prints nothing: the kept output is empty, and a
    // follower sees what the process writes later (here, an exec writing to its stdout).
    expect(await alice.getSandboxLogs('ex-main')).toEqual({ entries: [], truncated: false, droppedBytes: 0 });
    const abort = new AbortController();
    const follow = await alice.followSandboxLogs('ex-main', { signal: abort.signal });
    const mark = `mark-${randomBytes(3).toString('hex')}`;
    const write = execJson('ex-main', {
      command: `for p in /proc/[0-9]*; do [ "$(tr '\\0' ' ' < $p/cmdline 2>/dev/null)" = "${TEMPLATE_COMMAND} " ] && echo ${mark} > $p/fd/1; done; true`,
    });
    let seen = '';
    for await (const e of follow) {
      seen += e.data.data;
      if (seen.includes(mark)) break;
    }
    expect((await write).body.exitCode).toBe(0);
    expect(seen).toBe(`${mark}\n`);
  }, 60_000);
});

/** Invoke's query and configure's binary files (the shapes of issue 19, item 6). */
describe('item 6 shapes', () => {
  test('every Sandbox answer carries sandboxId, name and namespace', async () => {
    const created = await createAs(api, api.keys.alice, {
      name: 'ex-shape',
      templateRef: { name: template },
    });
    expect(created).toMatchObject({ sandboxId: 'ex-shape', name: 'ex-shape', namespace: ns.name });
    const got = (await (
      await api.call('GET', '/sandboxes/ex-shape', { key: api.keys.alice })
    ).json()) as Streamed['body'];
    expect(got).toMatchObject({ sandboxId: 'ex-shape', name: 'ex-shape', namespace: ns.name });
    const list = (await (await api.call('GET', '/sandboxes', { key: api.keys.alice })).json()) as {
      items: Record<string, unknown>[];
    };
    const item = list.items.find((i) => i.sandboxId === 'ex-shape');
    expect(item).toMatchObject({ name: 'ex-shape', namespace: ns.name });
    expect(list.items.every((i) => i.sandboxId === (i.metadata as { name: string }).name)).toBe(true);
  }, 60_000);

  test('configure takes contentBase64; invoke takes ?timeout= under defaultInvokeTimeout and refuses unknown parameters', async () => {
    await createAs(api, api.keys.alice, {
      name: 'ex-agent',
      mode: 'agent',
      templateRef: { name: template },
      harness: { agent: { defaultInvokeTimeout: '20s' } },
    });
    await waitForSandboxPhase(ns, 'ex-agent', 'Running', SLOW);
    await reachable(api, ns, 'ex-agent');
    const binary = randomBytes(3001);
    const configured = await sse(base, ns, 'POST', '/sandboxes/ex-agent/configure', {
      key: api.keys.alice,
      body: JSON.stringify({
        files: [
          { path: '/workspace/blob.bin', contentBase64: binary.toString('base64') },
          { path: '/workspace/agent.sh', content: 'read -r s; sleep "$s"; echo slept' },
        ],
        entrypoint: ['sh', '/workspace/agent.sh'],
      }),
    });
    expect(configured.events.at(-1)?.event, JSON.stringify(configured)).toBe('result');
    const sum = await execJson('ex-agent', { command: 'sha256sum /workspace/blob.bin | cut -d" " -f1' });
    expect(sum.body.stdout).toBe(`${createHash('sha256').update(binary).digest('hex')}\n`);
    const both = await sse(base, ns, 'POST', '/sandboxes/ex-agent/configure', {
      key: api.keys.alice,
      body: JSON.stringify({
        files: [{ path: '/workspace/x', content: 'a', contentBase64: 'YQ==' }],
        entrypoint: ['true'],
      }),
    });
    expect(both.status).toBe(400);

    const invoke = (query: string, stdin: string) =>
      sse(base, ns, 'POST', `/sandboxes/ex-agent/invoke${query}`, { key: api.keys.alice, body: stdin });
    const capped = await invoke('?timeout=1s', '30\n');
    expect(capped.events.at(-1)?.data).toMatchObject({ reason: 'timeout' });
    expect(capped.events.at(-1)?.data.durationMs).toBeLessThan(15_000);
    // Above defaultInvokeTimeout (20s) the default still caps it; the run ends well before.
    const within = await invoke('?timeout=1h', '0.1\n');
    expect(within.events.at(-1)?.data).toMatchObject({ reason: 'completed', exitCode: 0 });
    expect(output(within)).toBe('slept\n');
    for (const query of ['?timeout=soon', '?verbose=1', '?timeout=1s&x=y']) {
      const refused = await invoke(query, '0\n');
      expect(refused.status, query).toBe(400);
      expect(refused.body).toMatchObject({ error: 'invalid_request' });
    }
  }, 300_000);
});
