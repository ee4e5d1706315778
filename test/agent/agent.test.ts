// Agent mode end to end: the API (in-process, plus a second `svc api` process), the
// operator, devnode and sandboxd, against the real control plane. Every test owns its
// sandboxes (its own names) and leaves the namespace's policy as it found it, so a test that
// fails, or runs slowly on a loaded machine, takes no other test down with it.
import { createHash, randomBytes } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import { SseParser, type Sandbox, type SseMessage } from '../../core/index.ts';
import { eventually, type RunningSvc } from '../../stack/index.ts';
import {
  startApiProcess,
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
  waitForSandboxPhase,
} from '../support/index.ts';

const ns = useNamespace('agent');
useDevnode(ns);
// Every log line of the run is kept (the operator's and the second API process's, at debug)
// so a test can prove no secret, key or stdin reaches them.
const logs: string[] = [];
const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
let api: TestApi;
let base: string;
let second: RunningSvc;

/** How long a wait on the cluster may take on a loaded two-core machine. */
const SLOW = 120_000;

// The agent: its first stdin line picks what it does; the rest of stdin is its input.
const AGENT = `read -r cmd arg
case "$cmd" in
  echo) cat > /workspace/stdin.bin; sha256sum /workspace/stdin.bin | cut -d' ' -f1 ;;
  split) echo to-stdout; echo to-stderr >&2; exit 3 ;;
  wait) trap 'echo "$arg" > /workspace/term.marker; exit 143' TERM; echo ready; while :; do sleep 0.05; done ;;
  big) seq 1 1500000 ;;
  cat) cat "/workspace/$arg" ;;
  write) echo "$arg" > /workspace/kept.txt ;;
  cat-env) test -n "$AGENT_TOKEN" ;;
  *) echo "unknown $cmd" >&2; exit 2 ;;
esac
`;
const MiB32 = 32 * 1024 * 1024;
const INSTALL = ['sh', '-c', 'echo installing; echo run >> /workspace/install.count'];
const configureBody = {
  files: [{ path: '/workspace/agent.sh', content: AGENT }],
  entrypoint: ['sh', '/workspace/agent.sh'],
  installCommand: INSTALL,
};
/** The template's own cap, which a policy may lower. */
const TEMPLATE_CAP = 5;

const template = useClusterTemplate('agent', ns, { agent: { maxConcurrentInvokes: TEMPLATE_CAP } });
useOperator(ns, { identity: 'agent-test', logger });

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: SLOW });
  base = await api.serve();
  // A second API replica as its own `svc api` process, sharing the cluster and nothing else.
  second = await startApiProcess(
    inject('kubeconfigPath'),
    ns.name,
    ['--log-level', 'debug', '--status-wait-seconds', String(SLOW / 1000)],
    { onLine: (line) => logs.push(line), startTimeoutMs: 90_000 },
  );
}, SLOW);

afterAll(async () => {
  await second?.close();
  await api?.close();
}, 30_000);

// A test that set a policy leaves none behind, whether it passed or not.
afterEach(async () => {
  const res = await api.call('DELETE', `/governance/policies/${ns.name}`, { key: api.keys.admin });
  expect([204, 404]).toContain(res.status);
}, 30_000);

/** SIGKILL to the sandboxd whose environment carries `marker`, found on the host. */
async function killSandboxd(marker: string): Promise<void> {
  let killed = 0;
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const [env, cmdline] = await Promise.all([
      readFile(`/proc/${pid}/environ`, 'utf8').catch(() => ''),
      readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''),
    ]);
    if (env.includes(`SVC_TEST_MARKER=${marker}`) && cmdline.includes('sandboxd')) {
      process.kill(Number(pid), 'SIGKILL');
      killed++;
    }
  }
  expect(killed).toBeGreaterThan(0);
}

interface Streamed {
  status: number;
  headers: Headers;
  events: { event: string; data: Record<string, unknown> }[];
  body?: Record<string, unknown>;
}

/** A streaming call over real HTTP; `onEvent` may abort. */
async function sse(
  path: string,
  opts: {
    body?: string | Buffer;
    key?: string;
    url?: string;
    signal?: AbortSignal;
    onEvent?: (e: SseMessage) => void;
  } = {},
): Promise<Streamed> {
  const sep = path.includes('?') ? '&' : '?';
  const res = await fetch(`${opts.url ?? base}/api/v1${path}${sep}namespace=${ns.name}`, {
    method: 'POST',
    headers: {
      accept: 'text/event-stream',
      ...(opts.key === undefined ? {} : { 'x-api-key': opts.key }),
    },
    body: opts.body,
    signal: opts.signal,
  });
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    return {
      status: res.status,
      headers: res.headers,
      events: [],
      body: (await res.json()) as Record<string, unknown>,
    };
  }
  const parser = new SseParser();
  const events: Streamed['events'] = [];
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      for (const m of parser.push(decoder.decode(chunk, { stream: true }))) {
        events.push({ event: m.event, data: JSON.parse(m.data) as Record<string, unknown> });
        opts.onEvent?.(m);
      }
    }
  } catch (err) {
    if (!opts.signal?.aborted) throw err;
  }
  return { status: res.status, headers: res.headers, events };
}

const configure = (name: string, body: object | string = configureBody, key = api.keys.alice) =>
  sse(`/sandboxes/${name}/configure`, { body: typeof body === 'string' ? body : JSON.stringify(body), key });
const invoke = (name: string, stdin: string | Buffer, opts: Parameters<typeof sse>[1] = {}) =>
  sse(`/sandboxes/${name}/invoke`, { body: stdin, key: api.keys.alice, ...opts });
const stdout = (s: Streamed) =>
  s.events
    .filter((e) => e.event === 'log' && e.data.stream === 'stdout')
    .map((e) => e.data.data)
    .join('');
const exitOf = (s: Streamed) => s.events.find((e) => e.event === 'exit')?.data;

async function create(name: string, spec: object): Promise<void> {
  const res = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name, templateRef: { name: template }, ...spec },
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

async function phase(name: string, want: string): Promise<Sandbox> {
  return waitForSandboxPhase(ns, name, want, SLOW);
}

/**
 * Waits until the API reaches the sandbox's sandboxd: on a loaded machine a Running phase
 * can come a moment before, and a check that needs sandboxd answers 503 meanwhile.
 */
async function reachable(name: string): Promise<void> {
  let why = '';
  await eventually(
    async () => {
      try {
        await (await api.deps.sandboxd.client(ns.name, name)).runs();
        return true;
      } catch (err) {
        api.deps.sandboxd.forget(ns.name, name);
        why = (err as Error).message;
        return false;
      }
    },
    { timeoutMs: SLOW, describe: () => `sandboxd of ${name} reachable: ${why}` },
  );
}

/** A Running agent sandbox of the calling test's own, configured with the agent above. */
async function agentSandbox(name: string, spec: object = {}): Promise<Streamed> {
  await create(name, { mode: 'agent', ...spec });
  await phase(name, 'Running');
  const configured = await configure(name);
  expect(configured.status, JSON.stringify(configured.body)).toBe(200);
  expect(configured.events.at(-1)?.event, JSON.stringify(configured.events.at(-1))).toBe('result');
  return configured;
}

async function putPolicy(policy: object): Promise<void> {
  const res = await api.call('PUT', `/governance/policies/${ns.name}`, { key: api.keys.admin, body: policy });
  expect(res.status, await res.clone().text()).toBe(200);
}

/** Events of `reason` about sandbox `name`. */
async function events(reason: string, name: string): Promise<number> {
  const list = await ns.core.listNamespacedEvent({ namespace: ns.name });
  return list.items.filter((e) => e.reason === reason && e.involvedObject.name === name).length;
}

/** Starts `n` long invokes of `name`; resolves once each is running or has been answered. */
function parallelInvokes(name: string, n: number, urls: string[] = [base]) {
  const results: Streamed[] = [];
  const ids: string[] = [];
  const runs = Array.from({ length: n }, (_, i) => {
    const abort = new AbortController();
    const started = new Promise<void>((resolve) => {
      void invoke(name, `wait parallel-${i}\n`, {
        url: urls[i % urls.length],
        signal: abort.signal,
        onEvent: (m) => {
          if (m.event === 'start') ids.push((JSON.parse(m.data) as { invokeId: string }).invokeId);
          if (m.event === 'log') resolve();
        },
      }).then((r) => {
        results[i] = r;
        resolve();
      });
    });
    return { abort, started };
  });
  return {
    results,
    ids,
    started: Promise.all(runs.map((r) => r.started)),
    abort: () => runs.forEach((r) => r.abort.abort()),
  };
}

describe('agent mode', () => {
  test('check order: 401, 400 mode, 409 phase, 424 no entrypoint; owner-or-admin', async () => {
    await create('order-coder', { mode: 'code' });
    await create('order-agent', { mode: 'agent' });
    await create('order-parked', { mode: 'agent', stopped: true });
    await phase('order-coder', 'Running');
    await phase('order-agent', 'Running');
    await phase('order-parked', 'Stopped');

    for (const path of ['configure', 'invoke']) {
      const anonymous = await sse(`/sandboxes/order-agent/${path}`, { body: '{}' });
      expect(anonymous.status).toBe(401);
      const code = await sse(`/sandboxes/order-coder/${path}`, { body: '{}', key: api.keys.alice });
      expect(code.status).toBe(400);
      expect(code.body).toMatchObject({ error: 'not_agent_mode' });
      expect(String(code.body?.message)).toMatch(/file-transfer and exec APIs/);
      const parked = await sse(`/sandboxes/order-parked/${path}`, { body: '{}', key: api.keys.alice });
      expect(parked.status).toBe(409);
      expect(parked.body).toMatchObject({ error: 'not_running', phase: 'Stopped' });
      const other = await sse(`/sandboxes/order-agent/${path}`, { body: '{}', key: api.keys.bob });
      expect(other.status).toBe(403);
    }
    const unconfigured = await invoke('order-agent', 'echo\n');
    expect(unconfigured.status).toBe(424);
    expect(unconfigured.body).toMatchObject({ error: 'not_configured' });
  }, 300_000);

  test('configure limits and governance deny before anything is written, with ConfigureDenied', async () => {
    // Every body is serialised before the first request. In this process, turning 128 MiB
    // into JSON between two requests can block it past the server's keep-alive timeout,
    // which then closes the connection the client has just reused: a reset of the test's
    // own making, not the server's answer.
    const tooMany = JSON.stringify({
      ...configureBody,
      files: Array.from({ length: 201 }, (_, i) => ({ path: `/workspace/many/${i}`, content: 'x' })),
    });
    const fileOver = JSON.stringify({
      ...configureBody,
      files: [{ path: '/workspace/big.bin', content: 'x'.repeat(MiB32 + 1) }],
    });
    // 128 MiB and one byte in all, no file over 32 MiB.
    const requestOver = JSON.stringify({
      ...configureBody,
      files: [
        ...Array.from({ length: 4 }, (_, i) => ({ path: `/workspace/part${i}`, content: 'x'.repeat(MiB32) })),
        { path: '/workspace/part4', content: 'x' },
      ],
    });
    // Exactly at every bound: 200 files, 128 MiB in all, the largest exactly 32 MiB.
    const small = Array.from({ length: 195 }, (_, i) => ({ path: `/workspace/many/${i}`, content: 'x' }));
    const used = Buffer.byteLength(AGENT) + small.length + 3 * MiB32;
    const boundFiles = [
      ...configureBody.files,
      ...small,
      ...Array.from({ length: 3 }, (_, i) => ({
        path: `/workspace/bound${i}.bin`,
        content: 'y'.repeat(MiB32),
      })),
      { path: '/workspace/rest.bin', content: 'z'.repeat(4 * MiB32 - used) },
    ];
    expect(boundFiles.length).toBe(200);
    const atBounds = JSON.stringify({ ...configureBody, files: boundFiles });

    await create('limits', { mode: 'agent' });
    await phase('limits', 'Running');
    await reachable('limits');
    for (const [body, code] of [
      [tooMany, 'configure_too_many_files'],
      [fileOver, 'configure_file_too_large'],
      [requestOver, 'configure_request_too_large'],
    ] as const) {
      const res = await configure('limits', body);
      expect(res.status).toBe(403);
      expect(res.body?.error).toBe('policy_violation');
      expect((res.body?.violations as { code: string }[]).map((v) => v.code)).toEqual([code]);
    }
    await putPolicy({ allowedTemplates: ['something-else'] });
    const res = await configure('limits');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      error: 'policy_violation',
      violations: [{ code: 'template_not_allowed' }],
    });
    await eventually(async () => (await events('ConfigureDenied', 'limits')) === 4, {
      timeoutMs: 30_000,
      describe: () => 'four ConfigureDenied Events',
    });

    await putPolicy({ maxConcurrentInvokesPerSandbox: 2 });
    const ok = await configure('limits', atBounds);
    expect(ok.status).toBe(200);
    const result = ok.events.at(-1);
    expect(result?.event).toBe('result');
    expect(result?.data).toMatchObject({ installExitCode: 0, skipped: false, maxConcurrentInvokes: 2 });
    // Nothing of the denied requests reached the workspace.
    const probe = await invoke('limits', 'cat big.bin\n');
    expect(stdout(probe)).toBe('');
    const part = await invoke('limits', 'cat part0\n');
    expect(stdout(part)).toBe('');
  }, 300_000);

  test('a policy change reaches the very next configure: PUT, then configure, shows the new clamp', async () => {
    const first = await agentSandbox('clamped');
    expect(first.events.at(-1)?.data).toMatchObject({ maxConcurrentInvokes: TEMPLATE_CAP, skipped: false });
    // Each step: a PUT (or DELETE) and at once a configure, unchanged, so skipped; its result
    // carries the cap under the policy just written, on either API replica.
    for (const [cap, url] of [
      [3, base],
      [1, second.url],
      [4, base],
    ] as const) {
      await putPolicy({ maxConcurrentInvokesPerSandbox: cap });
      const res = await sse('/sandboxes/clamped/configure', {
        body: JSON.stringify(configureBody),
        key: api.keys.alice,
        url,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.events.at(-1)?.data).toMatchObject({ maxConcurrentInvokes: cap, skipped: true });
      expect((await phase('clamped', 'Running')).status?.agentConfigure?.maxConcurrentInvokes).toBe(cap);
    }
    const removed = await api.call('DELETE', `/governance/policies/${ns.name}`, { key: api.keys.admin });
    expect(removed.status).toBe(204);
    const restored = await configure('clamped');
    expect(restored.events.at(-1)?.data).toMatchObject({ maxConcurrentInvokes: TEMPLATE_CAP, skipped: true });
  }, 300_000);

  test('configure streams the install once; a repeat is skipped with the same hash', async () => {
    const first = await agentSandbox('install');
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const logs = first.events
      .filter((e) => e.event === 'log')
      .map((e) => e.data.data)
      .join('');
    expect(logs).toContain('installing');
    const result = first.events.at(-1)!;
    expect(result.event).toBe('result');
    expect(Object.keys(result.data).sort()).toEqual(
      [
        'entrypoint',
        'installCommandHash',
        'installExitCode',
        'lastConfiguredAt',
        'maxConcurrentInvokes',
        'skipped',
      ].sort(),
    );
    expect(result.data).toMatchObject({
      installExitCode: 0,
      entrypoint: configureBody.entrypoint,
      maxConcurrentInvokes: TEMPLATE_CAP,
      skipped: false,
    });

    const again = await configure('install');
    expect(again.events.filter((e) => e.event === 'log')).toEqual([]);
    expect(again.events.at(-1)?.data).toMatchObject({
      installCommandHash: result.data.installCommandHash,
      skipped: true,
    });
    // The install ran once, for the first configure only.
    expect(stdout(await invoke('install', 'cat install.count\n'))).toBe('run\n');

    const s = await phase('install', 'Running');
    expect(s.status?.agentConfigure).toMatchObject({
      installCommandHash: result.data.installCommandHash,
      installExitCode: 0,
      entrypoint: configureBody.entrypoint,
      maxConcurrentInvokes: TEMPLATE_CAP,
    });
    await eventually(async () => (await events('AgentConfigured', 'install')) === 2, {
      timeoutMs: 30_000,
      describe: () => 'two AgentConfigured Events',
    });

    const failing = await configure('install', { ...configureBody, installCommand: ['sh', '-c', 'exit 7'] });
    expect(failing.events.at(-1)?.data).toMatchObject({ installExitCode: 7, skipped: false });
    expect((await phase('install', 'Running')).status?.agentConfigure?.installExitCode).toBe(7);
  }, 300_000);

  test('invoke: binary stdin, stdout and stderr apart, exit codes, a 10 MiB stream in order', async () => {
    await agentSandbox('io');
    const bytes = randomBytes(256 * 1024);
    const echo = await invoke('io', Buffer.concat([Buffer.from('echo\n'), bytes]));
    expect(echo.events[0]?.event).toBe('start');
    expect(String(echo.events[0]?.data.invokeId)).toMatch(/^inv-/);
    expect(stdout(echo).trim()).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(exitOf(echo)).toMatchObject({
      exitCode: 0,
      reason: 'completed',
      invokeId: echo.events[0]?.data.invokeId,
    });

    const split = await invoke('io', 'split\n');
    expect(stdout(split)).toBe('to-stdout\n');
    expect(
      split.events
        .filter((e) => e.data.stream === 'stderr')
        .map((e) => e.data.data)
        .join(''),
    ).toBe('to-stderr\n');
    expect(exitOf(split)).toMatchObject({ exitCode: 3, reason: 'completed' });
    expect(split.events.at(-1)?.event).toBe('exit');

    const big = await invoke('io', 'big\n');
    const lines = stdout(big).split('\n');
    expect(lines.length).toBe(1_500_001);
    expect(lines.slice(0, 3)).toEqual(['1', '2', '3']);
    expect(lines.every((l, i) => (i === 1_500_000 ? l === '' : l === String(i + 1)))).toBe(true);
    expect(exitOf(big)).toMatchObject({ exitCode: 0, reason: 'completed' });
  }, 300_000);

  test('a run past defaultInvokeTimeout ends with reason timeout', async () => {
    await agentSandbox('timeout', { harness: { agent: { defaultInvokeTimeout: '3s' } } });
    const res = await invoke('timeout', 'wait timeout\n');
    expect(exitOf(res)).toMatchObject({ reason: 'timeout' });
  }, 300_000);

  test('cancel from the other API process ends the stream with -1/canceled; unknown ids are 404', async () => {
    await agentSandbox('cancel');
    let invokeId = '';
    let running: Streamed | undefined;
    const ready = new Promise<void>((resolve) => {
      void invoke('cancel', 'wait canceled\n', {
        onEvent: (m) => {
          if (m.event === 'start') invokeId = (JSON.parse(m.data) as { invokeId: string }).invokeId;
          if (m.event === 'log') resolve();
        },
      }).then((r) => (running = r));
    });
    await ready;
    const cancel = await fetch(`${second.url}/api/v1/sandboxes/cancel/invoke/cancel?namespace=${ns.name}`, {
      method: 'POST',
      headers: { 'x-api-key': api.keys.alice, 'content-type': 'application/json' },
      body: JSON.stringify({ invokeId }),
    });
    expect(cancel.status).toBe(202);
    await eventually(() => Promise.resolve(running !== undefined), {
      timeoutMs: 60_000,
      describe: () => 'the canceled stream to end',
    });
    expect(exitOf(running!)).toMatchObject({ invokeId, exitCode: -1, reason: 'canceled' });
    const again = await api.call('POST', '/sandboxes/cancel/invoke/cancel', {
      key: api.keys.alice,
      body: { invokeId },
    });
    expect(again.status).toBe(404);
    const bob = await api.call('POST', '/sandboxes/cancel/invoke/cancel', {
      key: api.keys.bob,
      body: { invokeId },
    });
    expect(bob.status).toBe(403);
  }, 300_000);

  test('a client that disconnects delivers SIGTERM to the entrypoint', async () => {
    await agentSandbox('disconnect');
    const abort = new AbortController();
    await invoke('disconnect', 'wait disconnected\n', {
      signal: abort.signal,
      onEvent: (m) => m.event === 'log' && abort.abort(),
    });
    let marker = '';
    await eventually(
      async () => {
        marker = stdout(await invoke('disconnect', 'cat term.marker\n'));
        return marker === 'disconnected\n';
      },
      { timeoutMs: 60_000, describe: () => `the TERM trap to write its marker: ${JSON.stringify(marker)}` },
    );
  }, 300_000);

  test('maxConcurrentInvokesPerSandbox 2 over a template asking 5: 2 run, 8 get the exact 429', async () => {
    await putPolicy({ maxConcurrentInvokesPerSandbox: 2 });
    const configured = await agentSandbox('capped');
    expect(configured.events.at(-1)?.data).toMatchObject({ maxConcurrentInvokes: 2 });
    const runs = parallelInvokes('capped', 10, [base, second.url]);
    await runs.started;
    expect(runs.results.filter((r) => r?.status === 200)).toEqual([]); // the two still run
    const refused = runs.results.filter((r) => r?.status === 429);
    expect(refused.length).toBe(8);
    for (const r of refused) {
      expect(r.headers.get('retry-after')).toBe('5');
      expect(r.body).toEqual({
        error: 'concurrency_exceeded',
        limit: 2,
        inflight: 2,
        message: 'this sandbox runs at most 2 concurrent invokes and 2 are in flight; retry after 5 seconds',
      });
    }

    // Over the cap and refused by governance at once: the cap answers first (429 before 403).
    await putPolicy({ maxConcurrentInvokesPerSandbox: 2, allowedTemplates: ['another-template'] });
    const both = await invoke('capped', 'split\n');
    expect(both.status).toBe(429);
    runs.abort();
    let refused403: Streamed | undefined;
    await eventually(
      async () => {
        refused403 = await invoke('capped', 'split\n');
        return refused403.status === 403;
      },
      { timeoutMs: 60_000, describe: () => `403 once the runs end: ${JSON.stringify(refused403?.body)}` },
    );
    expect(refused403?.body).toMatchObject({
      error: 'policy_violation',
      violations: [{ code: 'template_not_allowed' }],
    });
  }, 300_000);

  test('workspace data written by an invoke survives stop and resume', async () => {
    await agentSandbox('stopped');
    await invoke('stopped', 'write kept-across-stop\n');
    for (const path of ['stop', 'resume']) {
      const res = await api.call('POST', `/sandboxes/stopped/${path}`, { key: api.keys.alice });
      expect(res.status).toBeLessThan(300);
      await phase('stopped', path === 'stop' ? 'Stopped' : 'Running');
    }
    let read: Streamed | undefined;
    await eventually(
      async () => {
        read = await invoke('stopped', 'cat kept.txt\n');
        return read.status === 200;
      },
      {
        timeoutMs: 60_000,
        describe: () => `reading after resume: ${read?.status} ${JSON.stringify(read?.body)}`,
      },
    );
    expect(stdout(read!)).toBe('kept-across-stop\n');
  }, 300_000);

  test('a sandboxd crash mid-invoke: error then exit reason error; the workspace survives the restart', async () => {
    const marker = randomBytes(8).toString('hex');
    await agentSandbox('crash', { env: [{ name: 'SVC_TEST_MARKER', value: marker }] });
    await invoke('crash', 'write kept-across-crash\n');
    const crash = await invoke('crash', 'wait crash\n', {
      onEvent: (m) => void (m.event === 'log' && killSandboxd(marker)),
    });
    expect(crash.events.map((e) => e.event).slice(-2)).toEqual(['error', 'exit']);
    expect(crash.events.at(-2)?.data).toMatchObject({ code: 'sandbox_unreachable' });
    expect(exitOf(crash)).toMatchObject({ exitCode: -1, reason: 'error' });
    let read: Streamed | undefined;
    await eventually(
      async () => {
        read = await invoke('crash', 'cat kept.txt\n');
        return read.status === 200 && stdout(read) === 'kept-across-crash\n';
      },
      {
        timeoutMs: SLOW,
        describe: () => `reading after the restart: ${read?.status} ${JSON.stringify(read?.body)}`,
      },
    );
    const pod = await ns.core.readNamespacedPod({ name: 'crash', namespace: ns.name });
    expect(pod.status?.containerStatuses?.[0]?.restartCount).toBeGreaterThanOrEqual(1);
  }, 300_000);

  test('/metrics: the six agent series, labelled only template and outcome, count a known sequence', async () => {
    // A cap of its own (below the template's), so the third parallel invoke is throttled.
    await agentSandbox('metered', { harness: { agent: { maxConcurrentInvokes: 2 } } });
    const scrape = async () =>
      (await fetch(`${base}/metrics`, { headers: { 'x-api-key': api.keys.admin } })).text();
    const count = (text: string, series: string, outcome: string) => {
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`${series}{`) && l.includes(`outcome="${outcome}"`));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const before = await scrape();

    await invoke('metered', 'split\n'); // exit 3: failed
    await invoke('metered', 'write metrics\n'); // completed
    const runs = parallelInvokes('metered', 2);
    await runs.started;
    expect(runs.ids).toHaveLength(2);
    expect((await invoke('metered', 'split\n')).status).toBe(429); // throttled
    for (const invokeId of runs.ids) {
      const res = await api.call('POST', '/sandboxes/metered/invoke/cancel', {
        key: api.keys.alice,
        body: { invokeId },
      });
      expect(res.status).toBe(202);
    }
    const delta = (series: string, outcome: string, after: string) =>
      count(after, series, outcome) - count(before, series, outcome);
    let after = '';
    await eventually(
      async () => {
        after = await scrape();
        return delta('svc_invoke_requests_total', 'canceled', after) === 2;
      },
      { timeoutMs: 60_000, describe: () => 'two canceled invokes counted' },
    );
    expect(delta('svc_invoke_requests_total', 'completed', after)).toBe(1);
    expect(delta('svc_invoke_requests_total', 'failed', after)).toBe(1);
    expect(delta('svc_invoke_requests_total', 'throttled', after)).toBe(1);
    expect(delta('svc_invoke_throttled_total', 'throttled', after)).toBe(1);
    expect(delta('svc_invoke_duration_seconds_count', 'completed', after)).toBe(1);
    for (const series of [
      'svc_invoke_requests_total',
      'svc_invoke_duration_seconds',
      'svc_invoke_throttled_total',
      'svc_configure_requests_total',
      'svc_configure_duration_seconds',
      'svc_configure_throttled_total',
    ])
      expect(after).toContain(`# TYPE ${series} `);
    // No label but template and outcome (and a histogram's le): never a user or a sandbox.
    for (const line of after.split('\n').filter((l) => l.startsWith('svc_'))) {
      const labels = [...(/\{(.*)\}/.exec(line)?.[1] ?? '').matchAll(/(\w+)="/g)].map((m) => m[1]);
      for (const label of labels) expect(['template', 'outcome', 'le']).toContain(label);
      expect(line).not.toContain('alice');
      expect(line).not.toContain('"metered"');
    }
    runs.abort();
  }, 300_000);

  test('one Event and one audit log line per configure and invoke; no secret, key or stdin in any log', async () => {
    /** A credential value the sandbox receives; it must appear in no log line. */
    const planted = `planted-secret-${randomBytes(8).toString('hex')}`;
    await ns.core.createNamespacedSecret({
      namespace: ns.name,
      // alice's own Secret (labelled as POST /secrets stores it): the credentials rule lets her name it.
      body: {
        metadata: { name: 'audited-creds', labels: { 'svc.io/owner': 'alice' } },
        stringData: { token: planted },
      },
    });
    await create('audited', {
      mode: 'agent',
      credentials: { env: [{ name: 'AGENT_TOKEN', secretName: 'audited-creds', key: 'token' }] },
    });
    await phase('audited', 'Running');
    const stdinMarker = `stdin-marker-${randomBytes(8).toString('hex')}`;
    // A configure no other test makes (a file and an install command of its own), so its
    // hash names this call alone; its file content and its argv may reach no Event or log.
    const fileMarker = `file-marker-${randomBytes(8).toString('hex')}`;
    const argvMarker = `argv-marker-${randomBytes(8).toString('hex')}`;
    const via = { url: second.url };
    const configured = await sse('/sandboxes/audited/configure', {
      body: JSON.stringify({
        ...configureBody,
        files: [...configureBody.files, { path: '/workspace/marker.txt', content: fileMarker }],
        installCommand: ['sh', '-c', `: ${argvMarker}`],
      }),
      key: api.keys.alice,
      ...via,
    });
    const result = configured.events.at(-1);
    expect(result?.event).toBe('result');
    expect(result?.data).toMatchObject({ installExitCode: 0, skipped: false });
    const hash = String(result?.data.installCommandHash);
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const run = await invoke('audited', `echo ${stdinMarker}\n${stdinMarker}`, via);
    const invokeId = String(run.events[0]?.data.invokeId);
    expect(stdout(run)).toMatch(/^[0-9a-f]{64}\n$/);
    // The credential reached the sandbox (so it was there to leak).
    const inside = await invoke('audited', 'cat-env\n', via);
    expect(exitOf(inside)).toMatchObject({ exitCode: 0 });

    const auditLines = () =>
      logs
        .map((l) => {
          try {
            return JSON.parse(l) as { audit?: boolean; reason?: string; message?: string; actor?: string };
          } catch {
            return {};
          }
        })
        .filter((l) => l.audit === true);
    const eventsOf = async (id: string) =>
      (await ns.core.listNamespacedEvent({ namespace: ns.name })).items.filter((e) =>
        e.message?.includes(id),
      );
    await eventually(
      async () =>
        (await eventsOf(invokeId)).length === 1 &&
        (await eventsOf(hash)).length === 1 &&
        auditLines().some((l) => l.message?.includes(hash)),
      { timeoutMs: 30_000, describe: () => `one Event for ${invokeId} and one for configure ${hash}` },
    );
    expect(auditLines().filter((l) => l.message?.includes(invokeId))).toHaveLength(1);

    // The configure: one Event, whose reason is the outcome and whose annotation is the actor,
    // and one audit line saying the same; neither holds a file's content or the install argv.
    const [configureEvent, ...moreEvents] = await eventsOf(hash);
    expect(moreEvents).toEqual([]);
    expect(configureEvent).toMatchObject({
      reason: 'AgentConfigured',
      type: 'Normal',
      involvedObject: { kind: 'Sandbox', name: 'audited' },
      metadata: { annotations: { 'svc.io/actor': 'alice' } },
    });
    const [configureLine, ...moreLines] = auditLines().filter((l) => l.message?.includes(hash));
    expect(moreLines).toEqual([]);
    expect(configureLine).toMatchObject({
      reason: 'AgentConfigured',
      type: 'Normal',
      actor: 'alice',
      sandbox: 'audited',
      namespace: ns.name,
    });
    for (const record of [JSON.stringify(configureEvent), JSON.stringify(configureLine)]) {
      expect(record).not.toContain(fileMarker);
      expect(record).not.toContain(argvMarker);
      expect(record).not.toContain('agent.sh');
    }

    const all = logs.join('\n');
    expect(logs.length).toBeGreaterThan(10);
    expect(all).not.toContain(planted);
    expect(all).not.toContain(api.keys.alice);
    expect(all).not.toContain(stdinMarker);
    expect(all).not.toContain(fileMarker);
    expect(all).not.toContain(argvMarker);
    const events = JSON.stringify((await ns.core.listNamespacedEvent({ namespace: ns.name })).items);
    expect(events).not.toContain(planted);
    expect(events).not.toContain(stdinMarker);
    expect(events).not.toContain(fileMarker);
    expect(events).not.toContain(argvMarker);
  }, 300_000);
});
