// Detached runs and replayable events (issue 34, deliverables 1 and 2), end to end: the API
// served over HTTP, the operator, devnode and sandboxd, against the real control plane.
// Every test owns its sandboxes.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SseParser, type Sandbox } from '../../core/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
  waitForSandboxPhase,
} from '../support/index.ts';

const ns = useNamespace('detach');
useDevnode(ns);
const logger = pino({ level: 'silent' });
let api: TestApi;
let base: string;

const SLOW = 120_000;
/** sandboxd's buffer per run in these tests: small, so overflowing it is cheap. */
const BUFFER_BYTES = 256 * 1024;
const CAP = 2;

// The agent: its first stdin line picks what it does.
const AGENT = `read -r cmd arg
case "$cmd" in
  lines) i=1; while [ $i -le "$arg" ]; do echo "line-$i"; i=$((i+1)); sleep 0.01; done; echo done > /workspace/lines.done ;;
  gated) for i in 1 2 3; do echo "a-$i"; done; while [ ! -e /workspace/$arg ]; do sleep 0.02; done; for i in 1 2 3; do echo "b-$i"; done ;;
  wait) trap 'echo term; exit 143' TERM; echo ready; while :; do sleep 0.05; done ;;
  big) seq 1 "$arg" ;;
  *) echo "unknown $cmd" >&2; exit 2 ;;
esac
`;
const template = useClusterTemplate('detach', ns, { agent: { maxConcurrentInvokes: CAP } });
useOperator(ns, { identity: 'detach-test', logger, settings: { runs: { bufferBytes: BUFFER_BYTES } } });

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: SLOW });
  base = await api.serve();
}, SLOW);

afterAll(async () => {
  await api?.close();
}, 30_000);

interface Ev {
  id?: string;
  event: string;
  data: Record<string, unknown>;
}

const url = (path: string) => `${base}/api/v1${path}${path.includes('?') ? '&' : '?'}namespace=${ns.name}`;

/** POST with alice's key over real HTTP; the JSON answer. */
async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(url(path), {
    method: 'POST',
    headers: { 'x-api-key': api.keys.alice, ...headers },
    body,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

/** A run's events over real HTTP, until the stream ends or `stop` says so (then the connection is dropped). */
async function events(
  invokeId: string,
  opts: { name: string; lastEventId?: string; key?: string; stop?: (e: Ev) => boolean } = { name: '' },
): Promise<{ status: number; events: Ev[]; body?: unknown }> {
  const abort = new AbortController();
  const res = await fetch(url(`/sandboxes/${opts.name}/runs/${invokeId}/events`), {
    headers: {
      'x-api-key': opts.key ?? api.keys.alice,
      ...(opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {}),
    },
    signal: abort.signal,
  });
  if (res.status !== 200) return { status: res.status, events: [], body: await res.json() };
  const parser = new SseParser({ ids: true });
  const decoder = new TextDecoder();
  const out: Ev[] = [];
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      for (const m of parser.push(decoder.decode(chunk, { stream: true }))) {
        out.push({
          ...(m.id ? { id: m.id } : {}),
          event: m.event,
          data: JSON.parse(m.data) as Record<string, unknown>,
        });
        if (opts.stop?.(out.at(-1)!)) {
          abort.abort();
          return { status: 200, events: out };
        }
      }
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  }
  return { status: 200, events: out };
}

const stdoutOf = (evs: Ev[]) =>
  evs
    .filter((e) => e.event === 'log' && e.data.stream === 'stdout')
    .map((e) => e.data.data)
    .join('');

async function runs(name: string, key = api.keys.alice) {
  const res = await api.call('GET', `/sandboxes/${name}/runs`, { key });
  return { status: res.status, body: (await res.json()) as { items: Record<string, unknown>[] } };
}

async function exitedRun(name: string, invokeId: string): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  await eventually(
    async () => {
      found = (await runs(name)).body.items?.find((r) => r.invokeId === invokeId);
      return found?.state === 'exited';
    },
    { timeoutMs: 60_000, describe: () => `run ${invokeId} exited: ${JSON.stringify(found)}` },
  );
  return found!;
}

/** A Running agent sandbox of the calling test's own, configured with the agent above. */
async function agentSandbox(name: string): Promise<Sandbox> {
  const created = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name, templateRef: { name: template }, mode: 'agent' },
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const sandbox = await waitForSandboxPhase(ns, name, 'Running', SLOW);
  let configured = '';
  await eventually(
    async () => {
      const res = await fetch(url(`/sandboxes/${name}/configure`), {
        method: 'POST',
        headers: { 'x-api-key': api.keys.alice, accept: 'text/event-stream' },
        body: JSON.stringify({
          files: [{ path: '/workspace/agent.sh', content: AGENT }],
          entrypoint: ['sh', '/workspace/agent.sh'],
        }),
      });
      configured = await res.text();
      return res.status === 200 && configured.includes('event: result');
    },
    { timeoutMs: SLOW, describe: () => `configure ${name}: ${configured}` },
  );
  return sandbox;
}

/** Audit records of `reason` about sandbox `name`. */
async function audits(reason: string, name: string) {
  const list = await ns.core.listNamespacedEvent({ namespace: ns.name });
  return list.items.filter((e) => e.reason === reason && e.involvedObject.name === name);
}

describe('detached runs', () => {
  test('a detached invoke whose client is gone at once runs to its end; its events replay start, every log in order, exit', async () => {
    await agentSandbox('dt-end');
    const started = await post('/sandboxes/dt-end/invoke?detach=true', 'lines 40\nsecret-stdin\n');
    expect(started.status).toBe(202);
    const invokeId = String(started.body.invokeId);
    expect(invokeId).toMatch(/^inv-/);
    expect(started.body).toEqual({
      invokeId,
      eventsUrl: `/api/v1/sandboxes/dt-end/runs/${invokeId}/events?namespace=${ns.name}`,
    });
    // A reader that comes and goes at once leaves the run alone, too.
    await events(invokeId, { name: 'dt-end', stop: () => true });

    const run = await exitedRun('dt-end', invokeId);
    expect(run).toMatchObject({
      kind: 'invoke',
      state: 'exited',
      exitCode: 0,
      reason: 'completed',
      detached: true,
    });
    expect(typeof run.durationMs).toBe('number');
    const got = await events(invokeId, { name: 'dt-end' });
    expect(got.status).toBe(200);
    expect(got.events[0]).toMatchObject({ id: '1', event: 'start', data: { invokeId } });
    expect(got.events.at(-1)).toMatchObject({
      event: 'exit',
      data: { invokeId, exitCode: 0, reason: 'completed' },
    });
    expect(stdoutOf(got.events)).toBe(Array.from({ length: 40 }, (_, i) => `line-${i + 1}\n`).join(''));
    // Every event carries its id, 1, 2, 3… in order.
    expect(got.events.map((e) => e.id)).toEqual(got.events.map((_, i) => String(i + 1)));

    // A detached exec: the same, and its timeout is required.
    const noTimeout = await post(
      '/sandboxes/dt-end/exec?detach=true',
      JSON.stringify({ command: 'echo hi' }),
      {
        'content-type': 'application/json',
      },
    );
    expect(noTimeout.status).toBe(400);
    expect(noTimeout.body).toMatchObject({ error: 'timeout_required' });
    const exec = await post(
      '/sandboxes/dt-end/exec',
      JSON.stringify({ command: 'echo one; echo two >&2; exit 3', timeout: 30 }),
      { 'content-type': 'application/json', prefer: 'respond-async' },
    );
    expect(exec.status).toBe(202);
    const execId = String(exec.body.invokeId);
    expect(execId).toMatch(/^exec-/);
    expect(await exitedRun('dt-end', execId)).toMatchObject({ kind: 'exec', exitCode: 3, detached: true });
    const execEvents = await events(execId, { name: 'dt-end' });
    expect(execEvents.events.map((e) => e.event)).toEqual(['start', 'log', 'log', 'exit']);

    // One audit record per detach and per attach; never stdin.
    await eventually(async () => (await audits('RunDetached', 'dt-end')).length === 2, {
      timeoutMs: 30_000,
      describe: () => 'two RunDetached records',
    });
    const detached = await audits('RunDetached', 'dt-end');
    expect(detached.map((e) => e.message).sort()).toEqual(
      [`exec ${execId} by alice started detached`, `invoke ${invokeId} by alice started detached`].sort(),
    );
    await eventually(async () => (await audits('RunAttached', 'dt-end')).length === 3, {
      timeoutMs: 30_000,
      describe: () => 'three RunAttached records',
    });
    for (const e of [...detached, ...(await audits('RunAttached', 'dt-end'))])
      expect(e.message).not.toContain('secret-stdin');

    // Owner-or-admin: bob sees none of it.
    expect((await runs('dt-end', api.keys.bob)).status).toBe(403);
    expect((await events(invokeId, { name: 'dt-end', key: api.keys.bob })).status).toBe(403);
    expect((await runs('dt-end', api.keys.admin)).body.items.map((r) => r.invokeId)).toEqual(
      expect.arrayContaining([invokeId, execId]),
    );
    const unknown = await events('inv-nope', { name: 'dt-end' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'not_found' });
  }, 300_000);

  test('a client dropped mid-stream reconnects with Last-Event-ID and receives exactly the events after that id', async () => {
    await agentSandbox('dt-resume');
    const started = await post('/sandboxes/dt-resume/invoke?detach=true', 'gated gate-1\n');
    expect(started.status).toBe(202);
    const invokeId = String(started.body.invokeId);
    // Attached, dropped once a-3 arrived (the run then waits at its gate).
    const first = await events(invokeId, {
      name: 'dt-resume',
      stop: (e) => e.event === 'log' && String(e.data.data).includes('a-3'),
    });
    expect(stdoutOf(first.events)).toBe('a-1\na-2\na-3\n');
    const lastId = first.events.at(-1)!.id!;
    const gate = await post(
      '/sandboxes/dt-resume/exec',
      JSON.stringify({ command: 'touch /workspace/gate-1' }),
      {
        'content-type': 'application/json',
      },
    );
    expect(gate.status).toBe(200);
    const second = await events(invokeId, { name: 'dt-resume', lastEventId: lastId });
    expect(second.events[0]!.id).toBe(String(Number(lastId) + 1));
    expect(second.events.some((e) => e.event === 'start')).toBe(false);
    expect(stdoutOf(second.events)).toBe('b-1\nb-2\nb-3\n');
    expect(second.events.at(-1)).toMatchObject({ event: 'exit', data: { exitCode: 0, reason: 'completed' } });
    // The two halves are the whole run, as a replay from the start has it.
    const whole = await events(invokeId, { name: 'dt-resume' });
    expect([...first.events, ...second.events]).toEqual(whole.events);
    // After the exit's id there is nothing more.
    const after = await events(invokeId, { name: 'dt-resume', lastEventId: whole.events.at(-1)!.id! });
    expect(after).toEqual({ status: 200, events: [] });

    // An attached invoke (no detach): its client going away still cancels it (SIGTERM), and
    // what it said after the id the client saw last is still there to read.
    let attachedId = '';
    let seen = '';
    const abort = new AbortController();
    const res = await fetch(url('/sandboxes/dt-resume/invoke'), {
      method: 'POST',
      headers: { 'x-api-key': api.keys.alice, accept: 'text/event-stream' },
      body: 'wait\n',
      signal: abort.signal,
    });
    const parser = new SseParser({ ids: true });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        for (const m of parser.push(decoder.decode(chunk, { stream: true }))) {
          seen = m.id ?? '';
          if (m.event === 'start') attachedId = (JSON.parse(m.data) as { invokeId: string }).invokeId;
          if (m.event === 'log') abort.abort();
        }
      }
    } catch {
      // aborted
    }
    expect(seen).toBe('2');
    const rest = await exitedRun('dt-resume', attachedId);
    expect(rest).toMatchObject({ exitCode: -1, reason: 'canceled', detached: false });
    const tail = await events(attachedId, { name: 'dt-resume', lastEventId: seen });
    // The rest, from the id after it (the shell's "Terminated" on stderr among it).
    expect(tail.events.map((e) => e.id)).toEqual(tail.events.map((_, i) => String(Number(seen) + 1 + i)));
    expect(stdoutOf(tail.events)).toBe('term\n');
    expect(tail.events.at(-1)).toMatchObject({
      event: 'exit',
      data: { invokeId: attachedId, exitCode: -1, reason: 'canceled' },
    });

    const bad = await fetch(url(`/sandboxes/dt-resume/runs/${invokeId}/events`), {
      headers: { 'x-api-key': api.keys.alice, 'last-event-id': 'x1' },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request' });
  }, 300_000);

  test('a run whose buffer overflowed reports the drop and still ends with exit', async () => {
    await agentSandbox('dt-drop');
    const n = 200_000;
    const started = await post('/sandboxes/dt-drop/invoke?detach=true', `big ${n}\n`);
    expect(started.status).toBe(202);
    const invokeId = String(started.body.invokeId);
    expect(await exitedRun('dt-drop', invokeId)).toMatchObject({ exitCode: 0, reason: 'completed' });
    const got = await events(invokeId, { name: 'dt-drop' });
    expect(got.events[0]).toMatchObject({ id: '1', event: 'start' });
    expect(got.events[1]!.event).toBe('drop');
    const drop = got.events[1]!.data as { droppedBytes: number; droppedEvents: number };
    expect(drop.droppedEvents).toBeGreaterThan(0);
    // The drop's id is the last dropped event's: the next event kept follows it.
    expect(Number(got.events[2]!.id)).toBe(Number(got.events[1]!.id) + 1);
    expect(Number(got.events[1]!.id)).toBe(1 + drop.droppedEvents);
    const full = Array.from({ length: n }, (_, i) => `${i + 1}\n`).join('');
    const kept = stdoutOf(got.events);
    expect(drop.droppedBytes + Buffer.byteLength(kept)).toBe(Buffer.byteLength(full));
    expect(full.endsWith(kept)).toBe(true);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(BUFFER_BYTES);
    expect(got.events.at(-1)).toMatchObject({
      event: 'exit',
      data: { invokeId, exitCode: 0, reason: 'completed' },
    });
  }, 300_000);

  test('a detached run past its timeout is stopped with reason timeout', async () => {
    await agentSandbox('dt-timeout');
    const started = await post('/sandboxes/dt-timeout/invoke?detach=true&timeout=1s', 'wait\n');
    expect(started.status).toBe(202);
    const invokeId = String(started.body.invokeId);
    const exec = await post(
      '/sandboxes/dt-timeout/exec?detach=true',
      JSON.stringify({ command: 'sleep 600', timeout: '1s' }),
      {
        'content-type': 'application/json',
      },
    );
    expect(exec.status).toBe(202);
    expect(await exitedRun('dt-timeout', invokeId)).toMatchObject({ reason: 'timeout', exitCode: 143 });
    expect(await exitedRun('dt-timeout', String(exec.body.invokeId))).toMatchObject({ reason: 'timeout' });
    const got = await events(invokeId, { name: 'dt-timeout' });
    expect(stdoutOf(got.events)).toBe('ready\nterm\n');
    expect(got.events.at(-1)).toMatchObject({ event: 'exit', data: { reason: 'timeout', exitCode: 143 } });
  }, 300_000);

  test('the cap holds with detached runs: the next one gets 429 until one ends; cancel ends a detached run', async () => {
    await agentSandbox('dt-cap');
    const ids: string[] = [];
    for (let i = 0; i < CAP; i++) {
      const started = await post('/sandboxes/dt-cap/invoke?detach=true', 'wait\n');
      expect(started.status).toBe(202);
      ids.push(String(started.body.invokeId));
    }
    const over = await post('/sandboxes/dt-cap/invoke?detach=true', 'wait\n');
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('5');
    expect(over.body).toMatchObject({ error: 'concurrency_exceeded', limit: CAP, inflight: CAP });
    const attached = await post('/sandboxes/dt-cap/invoke', 'wait\n', { accept: 'text/event-stream' });
    expect(attached.status).toBe(429);

    // Cancel: bob may not; alice's ends the run as an attached one's would.
    const bobs = await api.call('POST', `/sandboxes/dt-cap/runs/${ids[0]}/cancel`, { key: api.keys.bob });
    expect(bobs.status).toBe(403);
    const canceled = await api.call('POST', `/sandboxes/dt-cap/runs/${ids[0]}/cancel`, {
      key: api.keys.alice,
    });
    expect(canceled.status).toBe(202);
    expect(await canceled.json()).toEqual({ invokeId: ids[0], status: 'canceling' });
    expect(await exitedRun('dt-cap', ids[0]!)).toMatchObject({
      exitCode: -1,
      reason: 'canceled',
      detached: true,
    });
    const again = await api.call('POST', `/sandboxes/dt-cap/runs/${ids[0]}/cancel`, { key: api.keys.alice });
    expect(again.status).toBe(404);
    // The spec's cancel works for a detached run too.
    const specCancel = await api.call('POST', '/sandboxes/dt-cap/invoke/cancel', {
      key: api.keys.alice,
      body: { invokeId: ids[1] },
    });
    expect(specCancel.status).toBe(202);
    expect(await exitedRun('dt-cap', ids[1]!)).toMatchObject({ exitCode: -1, reason: 'canceled' });

    const next = await post('/sandboxes/dt-cap/invoke?detach=true', 'lines 1\n');
    expect(next.status).toBe(202);
    expect(await exitedRun('dt-cap', String(next.body.invokeId))).toMatchObject({ exitCode: 0 });
    await eventually(async () => (await audits('RunCanceled', 'dt-cap')).length === 1, {
      timeoutMs: 30_000,
      describe: () => 'one RunCanceled record',
    });
    expect((await audits('RunCanceled', 'dt-cap'))[0]!.message).toBe(`invoke ${ids[0]} canceled by alice`);
  }, 300_000);
});
