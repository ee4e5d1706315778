// The TypeScript client (clients/typescript) against the whole stack over real HTTP: the API
// served on 127.0.0.1, the operator, devnode and sandboxd. Every call here goes through
// SvcClient; the stack only helps with what the API has no route for (reading a clone's files).
import { createHash, randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ConflictError,
  FailedDependencyError,
  ForbiddenError,
  NotFoundError,
  SvcClient,
  TooManyRequestsError,
  UnauthorizedError,
  type EventStream,
  type InvokeEvents,
  type StreamEvent,
} from '../../clients/typescript/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  OidcIssuer,
  shIn,
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('client');
useDevnode(ns);
// At most one invoke in flight per sandbox: a second one is the 429 under test.
const template = useClusterTemplate('client', ns, { agent: { maxConcurrentInvokes: 1 } });
useOperator(ns, {
  identity: 'client-test',
  logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }),
  settings: { snapshotWaitSeconds: 60 },
});

// The agent: its first stdin line picks what it does; the rest of stdin is its input.
const AGENT = `read -r cmd arg
case "$cmd" in
  echo) cat > /workspace/stdin.bin; sha256sum /workspace/stdin.bin | cut -d' ' -f1 ;;
  split) echo to-stdout; echo to-stderr >&2; exit 3 ;;
  wait) trap 'echo "$arg" > /workspace/term.marker; exit 143' TERM; echo ready; while :; do sleep 0.05; done ;;
  cat) cat "/workspace/$arg" ;;
  *) echo "unknown $cmd" >&2; exit 2 ;;
esac
`;
const ENTRYPOINT = ['sh', '/workspace/agent.sh'];

const issuer = new OidcIssuer();
let api: TestApi;
let base: string;
let alice: SvcClient;
let admin: SvcClient;

beforeAll(async () => {
  await issuer.start();
  api = await startTestApi(ns, { statusWaitMs: 60_000, oidc: { issuer: issuer.url } });
  base = await api.serve();
  alice = new SvcClient({ baseUrl: base, apiKey: api.keys.alice, namespace: ns.name });
  admin = new SvcClient({ baseUrl: base, apiKey: api.keys.admin, namespace: ns.name });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await issuer.stop();
}, 30_000);

/** A fresh agent-mode sandbox of the calling test's own, Running and configured. */
async function agentSandbox(prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  const made = await alice.createSandbox({ name, mode: 'agent', templateRef: { name: template } });
  expect(made.metadata.name).toBe(name);
  expect((await alice.waitForPhase(name, 'Running', { timeoutMs: 90_000 })).status?.phase).toBe('Running');
  const events = await (
    await alice.configureSandbox(name, {
      files: [{ path: '/workspace/agent.sh', content: AGENT }],
      entrypoint: ENTRYPOINT,
    })
  ).toArray();
  expect(events.at(-1)).toMatchObject({ event: 'result', data: { installExitCode: 0 } });
  return name;
}

const stdoutOf = (events: StreamEvent<InvokeEvents>[]) =>
  events.map((e) => (e.event === 'log' && e.data.stream === 'stdout' ? e.data.data : '')).join('');

/** Reads a stream up to its first `log` event; returns the invokeId and the rest of the stream. */
async function untilReady(stream: EventStream<InvokeEvents>) {
  const it = stream[Symbol.asyncIterator]();
  let invokeId = '';
  for (;;) {
    const next = await it.next();
    if (next.done) throw new Error('the stream ended before its first log event');
    if (next.value.event === 'start') invokeId = next.value.data.invokeId;
    if (next.value.event === 'log') return { invokeId, rest: it };
  }
}

async function drain(it: AsyncIterator<StreamEvent<InvokeEvents>>): Promise<StreamEvent<InvokeEvents>[]> {
  const out: StreamEvent<InvokeEvents>[] = [];
  for (let next = await it.next(); !next.done; next = await it.next()) out.push(next.value);
  return out;
}

describe('the TypeScript client on the whole stack', () => {
  test('create, wait for Running, configure and invoke: typed events in order; 424 before configure', async () => {
    const name = `flow-${randomBytes(3).toString('hex')}`;
    const made = await alice.createSandbox({ name, mode: 'agent', templateRef: { name: template } });
    expect(made).toMatchObject({ kind: 'Sandbox', metadata: { name, namespace: ns.name } });
    expect(made.spec.createdBy).toBe('alice');
    const running = await alice.waitForPhase(name, 'Running', { timeoutMs: 90_000 });
    expect(running.status?.phase).toBe('Running');

    const early = await alice.invokeSandbox(name, 'split\n').catch((e: unknown) => e);
    expect(early).toBeInstanceOf(FailedDependencyError);
    expect(early).toMatchObject({ status: 424, code: 'not_configured' });

    const configured = await (
      await alice.configureSandbox(name, {
        files: [{ path: '/workspace/agent.sh', content: AGENT }],
        entrypoint: ENTRYPOINT,
        installCommand: ['sh', '-c', 'echo installing'],
      })
    ).toArray();
    expect(configured.map((e) => e.event)).toEqual(['log', 'result']);
    expect(configured[0]).toEqual({ event: 'log', data: { stream: 'stdout', data: 'installing\n' } });
    expect(configured[1]).toMatchObject({
      event: 'result',
      data: { installExitCode: 0, skipped: false, entrypoint: ENTRYPOINT, maxConcurrentInvokes: 1 },
    });

    const events = await (await alice.invokeSandbox(name, 'split\n')).toArray();
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('start');
    expect(names.at(-1)).toBe('exit');
    expect(names.slice(1, -1).every((n) => n === 'log')).toBe(true);
    const start = events[0]!.event === 'start' ? events[0]!.data : undefined;
    expect(start?.invokeId).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
    const logs = events.flatMap((e) => (e.event === 'log' ? [e.data] : []));
    expect(logs.filter((l) => l.stream === 'stdout').map((l) => l.data)).toEqual(['to-stdout\n']);
    expect(logs.filter((l) => l.stream === 'stderr').map((l) => l.data)).toEqual(['to-stderr\n']);
    expect(events.at(-1)).toMatchObject({
      event: 'exit',
      data: { invokeId: start?.invokeId, exitCode: 3, reason: 'completed' },
    });

    // Stdin as a stream, sent as it is read: 4 MiB arrive byte for byte.
    const input = new Uint8Array(4 * 1024 * 1024).map((_, i) => (i * 7) % 251);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('echo\n'));
        for (let i = 0; i < input.length; i += 65_536) controller.enqueue(input.slice(i, i + 65_536));
        controller.close();
      },
    });
    const echoed = await (await alice.invokeSandbox(name, body)).toArray();
    expect(stdoutOf(echoed)).toBe(`${createHash('sha256').update(input).digest('hex')}\n`);
    expect(echoed.at(-1)).toMatchObject({ event: 'exit', data: { exitCode: 0, reason: 'completed' } });

    // The configure is in the audit log, as alice's.
    let audit: Awaited<ReturnType<SvcClient['listAuditEvents']>> | undefined;
    await eventually(
      async () => {
        audit = await admin.listAuditEvents({ sandbox: name, reason: 'AgentConfigured' });
        return audit.items.length > 0;
      },
      { timeoutMs: 20_000, describe: () => `an AgentConfigured record: ${JSON.stringify(audit)}` },
    );
    expect(audit?.items[0]).toMatchObject({ sandbox: name, namespace: ns.name, reason: 'AgentConfigured' });
  }, 180_000);

  test('cancel: cancelInvoke ends the stream with -1/canceled; an aborted signal ends the run', async () => {
    const name = await agentSandbox('cancel');
    const { invokeId, rest } = await untilReady(await alice.invokeSandbox(name, 'wait by-cancel\n'));
    expect(await alice.cancelInvoke(name, invokeId)).toEqual({ invokeId, status: 'canceling' });
    const tail = await drain(rest);
    expect(tail.at(-1)).toMatchObject({
      event: 'exit',
      data: { invokeId, exitCode: -1, reason: 'canceled' },
    });
    await expect(alice.cancelInvoke(name, invokeId)).rejects.toBeInstanceOf(NotFoundError);

    const abort = new AbortController();
    const stream = await alice.invokeSandbox(name, 'wait by-abort\n', { signal: abort.signal });
    const seen: string[] = [];
    const ended = await (async () => {
      for await (const e of stream) {
        seen.push(e.event);
        if (e.event === 'log') abort.abort();
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['start', 'log']);
    expect(ended).toMatchObject({ name: 'AbortError' });
    // The disconnect reached the entrypoint as SIGTERM (its trap wrote the marker), and the
    // one invoke slot is free again.
    let out = '';
    await eventually(
      async () => {
        out = stdoutOf(
          await (await alice.invokeSandbox(name, 'cat term.marker\n')).toArray().catch(() => []),
        );
        return out === 'by-abort\n';
      },
      { timeoutMs: 30_000, describe: () => `the TERM trap's marker: ${JSON.stringify(out)}` },
    );
  }, 180_000);

  test('429 over a cap of 1 carries retryAfter; with retry on, the second invoke runs once the first ends', async () => {
    const name = await agentSandbox('cap');
    const first = await untilReady(await alice.invokeSandbox(name, 'wait first\n'));

    const refused = await alice.invokeSandbox(name, 'split\n').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    const err = refused as TooManyRequestsError;
    expect({ status: err.status, code: err.code, retryAfter: err.retryAfter, body: err.body }).toEqual({
      status: 429,
      code: 'concurrency_exceeded',
      retryAfter: 5,
      body: {
        error: 'concurrency_exceeded',
        limit: 1,
        inflight: 1,
        message: 'this sandbox runs at most 1 concurrent invokes and 1 are in flight; retry after 5 seconds',
      },
    });

    // Opt-in retry: the first attempt is refused while `first` runs, the next one passes.
    const statuses: number[] = [];
    const patient = new SvcClient({
      baseUrl: base,
      apiKey: api.keys.alice,
      namespace: ns.name,
      retry: { maxAttempts: 5 },
      fetch: async (req) => {
        const res = await fetch(req);
        statuses.push(res.status);
        return res;
      },
    });
    const second = patient.invokeSandbox(name, 'split\n');
    await eventually(() => Promise.resolve(statuses.length > 0), {
      timeoutMs: 20_000,
      describe: () => 'the retrying client to be refused once',
    });
    expect(statuses).toEqual([429]);
    await alice.cancelInvoke(name, first.invokeId);
    expect((await drain(first.rest)).at(-1)).toMatchObject({ event: 'exit', data: { reason: 'canceled' } });
    const events = await (await second).toArray();
    expect(statuses).toEqual([429, 200]);
    expect(events.at(-1)).toMatchObject({ event: 'exit', data: { exitCode: 3, reason: 'completed' } });
  }, 180_000);

  test('errors: 401 (key and bearer), 403 with violations from a namespace policy, 403 not owner, 404, 409', async () => {
    await expect(
      new SvcClient({ baseUrl: base, apiKey: 'not-a-key', namespace: ns.name }).listSandboxes(),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(
      new SvcClient({ baseUrl: base, token: 'not.a.jwt', namespace: ns.name }).listSandboxes(),
    ).rejects.toMatchObject({ status: 401 });

    const missing = await alice.getSandbox('no-such-sandbox').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });

    const name = `dup-${randomBytes(3).toString('hex')}`;
    await alice.createSandbox({ name, templateRef: { name: template } });
    const again = await alice
      .createSandbox({ name, templateRef: { name: template } })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ConflictError);
    expect(again).toMatchObject({ status: 409 });

    // A bearer token for alice sees her sandbox; bob's key may not read it.
    const token = await issuer.token({ sub: 'alice', aud: 'svc' });
    const viaToken = new SvcClient({ baseUrl: base, token, namespace: ns.name });
    expect((await viaToken.getSandbox(name)).metadata.name).toBe(name);
    const bob = new SvcClient({ baseUrl: base, apiKey: api.keys.bob, namespace: ns.name });
    const notOwner = await bob.getSandbox(name).catch((e: unknown) => e);
    expect(notOwner).toBeInstanceOf(ForbiddenError);
    expect((notOwner as ForbiddenError).violations).toEqual([]);

    await admin.setNamespacePolicy(ns.name, { allowedTemplates: ['only-this-other-template'] });
    try {
      const denied = await alice
        .createSandbox({ name: `denied-${randomBytes(3).toString('hex')}`, templateRef: { name: template } })
        .catch((e: unknown) => e);
      expect(denied).toBeInstanceOf(ForbiddenError);
      const forbidden = denied as ForbiddenError;
      expect(forbidden.status).toBe(403);
      expect(forbidden.code).toBe('policy_violation');
      expect(forbidden.violations.map((v) => v.code)).toEqual(['template_not_allowed']);
      expect(forbidden.violations[0]?.message).toContain(template);
    } finally {
      await admin.deleteNamespacePolicy(ns.name);
    }
    await alice.deleteSandbox(name);
  }, 120_000);

  test("secrets: create shows names and keys, never values; list is the caller's own; delete, then 404", async () => {
    const name = `token-${randomBytes(3).toString('hex')}`;
    const value = randomBytes(12).toString('hex');
    const created = await alice.createSecret({ name, data: { OPENAI_API_KEY: value } });
    expect(created).toMatchObject({ name, namespace: ns.name, owner: 'alice', keys: ['OPENAI_API_KEY'] });
    expect(JSON.stringify(created)).not.toContain(value);
    const listed = await alice.listSecrets();
    expect(listed.items.filter((s) => s.name === name)).toEqual([
      expect.objectContaining({ keys: ['OPENAI_API_KEY'] }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(value);
    const bob = new SvcClient({ baseUrl: base, apiKey: api.keys.bob, namespace: ns.name });
    expect((await bob.listSecrets()).items.map((s) => s.name)).not.toContain(name);
    await expect(bob.deleteSecret(name)).rejects.toBeInstanceOf(NotFoundError);
    await alice.deleteSecret(name);
    await expect(alice.deleteSecret(name)).rejects.toBeInstanceOf(NotFoundError);
  }, 60_000);

  test('clone: the copy runs with the source files; ports forward and unforward', async () => {
    const name = await agentSandbox('origin');
    const marker = randomBytes(16).toString('hex');
    const stream = await alice.configureSandbox(name, {
      files: [
        { path: '/workspace/agent.sh', content: AGENT },
        { path: '/workspace/marker.txt', content: marker },
      ],
      entrypoint: ENTRYPOINT,
    });
    expect((await stream.toArray()).at(-1)).toMatchObject({ event: 'result' });

    const port = await alice.forwardPort(name, { port: 8080 });
    expect(port).toEqual({
      port: 8080,
      protocol: 'http',
      internalUrl: `http://pf-${name}-8080.${ns.name}.svc.cluster.local:8080`,
    });
    expect((await alice.getSandbox(name)).status?.forwardedPorts?.map((p) => p.port)).toEqual([8080]);
    await alice.unforwardPort(name, 8080);
    expect((await alice.getSandbox(name)).status?.forwardedPorts ?? []).toEqual([]);

    const copyName = `copy-${randomBytes(3).toString('hex')}`;
    const accepted = await alice.cloneSandbox(name, { name: copyName });
    expect(accepted).toMatchObject({
      name: copyName,
      namespace: ns.name,
      clonedFrom: name,
      phase: 'Pending',
    });
    const copy = await alice.waitForPhase(copyName, 'Running', { timeoutMs: 120_000 });
    expect(copy.status?.clonedFrom).toBe(name);
    expect(copy.spec.createdBy).toBe('alice');
    const sandboxd = await api.deps.sandboxd.client(ns.name, copyName);
    expect(await shIn(sandboxd, 'cat /workspace/marker.txt')).toBe(marker);
  }, 240_000);
});
