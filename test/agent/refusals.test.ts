// Refused configure and invoke calls are audited too (issue 16, item 5): every call the API
// answers with an error leaves one Event on the Sandbox and one audit log line, with the
// status, the error code and the actor, never argv or stdin. Real API, operator, devnode
// and sandboxd.
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AuditRecorder, type AuditRecord } from '../../api/index.ts';
import { SseParser } from '../../core/index.ts';
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

const ns = useNamespace('refusals');
useDevnode(ns);
const template = useClusterTemplate('refusals', ns, {});
useOperator(ns, { identity: 'refusals', logger: pino({ level: 'silent' }) });
let api: TestApi;
let base: string;
/** The API's audit log lines, as JSON. */
const lines: Record<string, unknown>[] = [];
/** In every request body sent here; it must reach no Event and no log line. */
const secret = `stdin-${randomBytes(8).toString('hex')}`;

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: 60_000 });
  api.deps.audit = new AuditRecorder(
    ns.kc,
    pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as never) }),
  );
  base = await api.serve();
}, 60_000);
afterAll(async () => api?.close(), 30_000);

async function create(name: string, spec: object): Promise<void> {
  const res = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name, templateRef: { name: template }, ...spec },
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

async function phase(name: string, want: string): Promise<void> {
  await waitForSandboxPhase(ns, name, want);
  await api.deps.cache.until(ns.name, name, (c) => c?.status?.phase === want, 10_000);
}

const post = (path: string, body: string, key = api.keys.alice) =>
  fetch(`${base}/api/v1/sandboxes/${path}?namespace=${ns.name}`, {
    method: 'POST',
    headers: { 'x-api-key': key, accept: 'text/event-stream' },
    body,
  });

async function audit(sandbox: string): Promise<AuditRecord[]> {
  const res = await api.call('GET', `/audit/events?sandbox=${sandbox}`, { key: api.keys.admin });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: AuditRecord[] }).items;
}

/** Calls, expects the refusal, then the one Event and the one log line it left. */
async function refused(
  call: { path: string; body: string; key?: string },
  want: { status: number; error: string; reason: string; sandbox: string; actor: string; verb?: string },
): Promise<void> {
  const before = (await audit(want.sandbox)).length;
  const res = await post(call.path, call.body, call.key);
  expect(res.status).toBe(want.status);
  expect(((await res.json()) as { error: string }).error).toBe(want.error);
  const kind = call.path.endsWith('/configure') ? 'configure' : 'invoke';
  const prefix = `${kind} by ${want.actor} ${want.verb ?? 'refused'}: ${want.status} ${want.error}: `;
  let records: AuditRecord[] = [];
  await eventually(async () => (records = await audit(want.sandbox)).length === before + 1, {
    timeoutMs: 10_000,
    describe: () => `one more Event on ${want.sandbox}: ${JSON.stringify(records)}`,
  });
  const [latest] = records;
  expect(latest).toMatchObject({ reason: want.reason, type: 'Warning', actor: want.actor });
  expect(latest!.message.startsWith(prefix), latest!.message).toBe(true);
  expect(
    lines.filter(
      (l) =>
        l.audit === true &&
        l.reason === want.reason &&
        l.sandbox === want.sandbox &&
        l.status === want.status &&
        l.error === want.error &&
        l.actor === want.actor &&
        String(l.message).startsWith(prefix),
    ),
  ).toHaveLength(1);
}

const configureBody = (extra: object = {}) =>
  JSON.stringify({
    files: [{ path: '/workspace/agent.sh', content: `echo ${secret}` }],
    entrypoint: ['sh', '/workspace/agent.sh', secret],
    ...extra,
  });

describe('refused agent calls are audited', () => {
  test('400, 403, 409, 424 and 429 each leave one Event and one audit line; no argv or stdin', async () => {
    await create('coder', { mode: 'code', stopped: true });
    await create('parked', { mode: 'agent', stopped: true });
    await create('bot', { mode: 'agent' });
    await phase('coder', 'Stopped');
    await phase('parked', 'Stopped');
    await phase('bot', 'Running');

    const alice = { actor: 'alice' };
    await refused(
      { path: 'coder/configure', body: configureBody() },
      { ...alice, status: 400, error: 'not_agent_mode', reason: 'ConfigureRefused', sandbox: 'coder' },
    );
    await refused(
      { path: 'parked/invoke', body: secret },
      { ...alice, status: 409, error: 'not_running', reason: 'InvokeRefused', sandbox: 'parked' },
    );
    await refused(
      { path: 'bot/invoke', body: secret },
      { ...alice, status: 424, error: 'not_configured', reason: 'InvokeRefused', sandbox: 'bot' },
    );
    await refused(
      { path: 'bot/configure', body: JSON.stringify({ files: 'none', entrypoint: [secret] }) },
      { ...alice, status: 400, error: 'invalid_request', reason: 'ConfigureRefused', sandbox: 'bot' },
    );
    await refused(
      { path: 'bot/configure', body: configureBody(), key: api.keys.bob },
      { actor: 'bob', status: 403, error: 'forbidden', reason: 'ConfigureRefused', sandbox: 'bot' },
    );
    // Governance's 403 keeps its own reason, once.
    const many = Array.from({ length: 201 }, (_, i) => ({ path: `/workspace/f${i}`, content: secret }));
    await refused(
      { path: 'bot/configure', body: JSON.stringify({ files: many, entrypoint: ['sh', secret] }) },
      {
        ...alice,
        status: 403,
        error: 'policy_violation',
        reason: 'ConfigureDenied',
        sandbox: 'bot',
        verb: 'denied',
      },
    );

    // 429: a configure while an install runs.
    const first = await post(
      'bot/configure',
      configureBody({ installCommand: ['sh', '-c', 'echo started; sleep 3'] }),
    );
    expect(first.status).toBe(200);
    const parser = new SseParser();
    const decoder = new TextDecoder();
    const events: string[] = [];
    const reader = (first.body as ReadableStream<Uint8Array>).getReader();
    while (!events.includes('log')) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const m of parser.push(decoder.decode(value, { stream: true }))) events.push(m.event);
    }
    expect(events).toContain('log');
    await refused(
      { path: 'bot/configure', body: configureBody() },
      { ...alice, status: 429, error: 'concurrency_exceeded', reason: 'ConfigureRefused', sandbox: 'bot' },
    );
    for (let r = await reader.read(); !r.done; r = await reader.read())
      for (const m of parser.push(decoder.decode(r.value, { stream: true }))) events.push(m.event);
    expect(events.at(-1)).toBe('result');

    const all = JSON.stringify([...(await audit('bot')), ...(await audit('parked')), ...lines]);
    expect(all).not.toContain(secret);
  }, 240_000);
});
