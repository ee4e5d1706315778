// A governance change reaches running agent sandboxes by itself: the operator watches the
// policy ConfigMap and reconciles the agent sandboxes, so a lowered
// `maxConcurrentInvokesPerSandbox` is in their status and enforced by their sandboxd within
// 2 s, with nothing else about the sandbox changed (no spec write, no new Pod).
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GROUP, SseParser, VERSION, type Sandbox, type SseMessage } from '../../core/index.ts';
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

const ns = useNamespace('oppolicy');
useDevnode(ns);
const template = useClusterTemplate('oppolicy', ns, { agent: { maxConcurrentInvokes: 5 } });
useOperator(ns, { identity: 'policy-test', logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }) });

// `wait` blocks (printing "ready") until it is cancelled.
const AGENT = `read -r cmd
case "$cmd" in
  wait) echo ready; while :; do sleep 0.05; done ;;
  *) echo "$cmd" ;;
esac
`;
/** What the requirement allows from the policy write to the sandbox enforcing it. */
const WITHIN_MS = 2_000;

let api: TestApi;
let base = '';
beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: 120_000 });
  base = await api.serve();
}, 120_000);
afterAll(async () => {
  await api?.close();
}, 30_000);

/** A streaming POST; resolves with the status and, for a JSON answer, its body. */
async function stream(
  path: string,
  body: string,
  opts: { signal?: AbortSignal; onEvent?: (m: SseMessage) => void } = {},
): Promise<{ status: number; events: SseMessage[]; body?: unknown }> {
  const res = await fetch(`${base}/api/v1/sandboxes/${path}?namespace=${ns.name}`, {
    method: 'POST',
    headers: { accept: 'text/event-stream', 'x-api-key': api.keys.alice },
    body,
    signal: opts.signal,
  });
  if (!res.headers.get('content-type')?.startsWith('text/event-stream'))
    return { status: res.status, events: [], body: await res.json() };
  const parser = new SseParser();
  const events: SseMessage[] = [];
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      for (const m of parser.push(decoder.decode(chunk, { stream: true }))) {
        events.push(m);
        opts.onEvent?.(m);
      }
    }
  } catch (err) {
    if (!opts.signal?.aborted) throw err;
  }
  return { status: res.status, events };
}

const read = async (name: string) =>
  (await ns.custom.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: 'sandboxes',
    namespace: ns.name,
    name,
  })) as Sandbox;

/** A blocking invoke; resolves once the agent has started. */
function blockingInvoke(name: string, abort: AbortController): Promise<void> {
  return new Promise((resolve, reject) => {
    stream(`${name}/invoke`, 'wait\n', {
      signal: abort.signal,
      onEvent: (m) => {
        if (m.event === 'log') resolve();
      },
    }).then(
      (r) => reject(new Error(`the invoke ended early: ${r.status} ${JSON.stringify(r.body)}`)),
      reject,
    );
  });
}

describe('governance reaches running agent sandboxes', () => {
  test('a lowered maxConcurrentInvokesPerSandbox is in status and enforced within 2 s, nothing else changed', async () => {
    const name = 'capped';
    const created = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: { name, mode: 'agent', templateRef: { name: template } },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    await waitForSandboxPhase(ns, name, 'Running', 120_000);
    const configured = await stream(
      `${name}/configure`,
      JSON.stringify({
        files: [{ path: '/workspace/agent.sh', content: AGENT }],
        entrypoint: ['sh', '/workspace/agent.sh'],
      }),
    );
    expect(configured.status, JSON.stringify(configured.body)).toBe(200);
    expect(JSON.parse(configured.events.at(-1)!.data)).toMatchObject({ maxConcurrentInvokes: 5 });

    // Two invokes in flight under the template's cap of 5.
    const aborts = [new AbortController(), new AbortController()];
    try {
      await Promise.all(aborts.map((a) => blockingInvoke(name, a)));
      const before = await read(name);
      expect(before.status?.agentConfigure?.maxConcurrentInvokes).toBe(5);
      const pod = await ns.core.readNamespacedPod({ name, namespace: ns.name });

      const put = await api.call('PUT', `/governance/policies/${ns.name}`, {
        key: api.keys.admin,
        body: { maxConcurrentInvokesPerSandbox: 2 },
      });
      expect(put.status, await put.clone().text()).toBe(200);
      const written = Date.now();
      let seen: Sandbox | undefined;
      await eventually(
        async () => {
          seen = await read(name);
          return seen.status?.agentConfigure?.maxConcurrentInvokes === 2;
        },
        {
          timeoutMs: WITHIN_MS,
          intervalMs: 20,
          describe: () => `agentConfigure ${JSON.stringify(seen?.status?.agentConfigure)}`,
        },
      );
      // The third invoke is one too many for the new cap.
      const third = await stream(`${name}/invoke`, 'hello\n');
      const elapsed = Date.now() - written;
      expect(third.status, JSON.stringify(third.body)).toBe(429);
      expect(third.body).toEqual({
        error: 'concurrency_exceeded',
        limit: 2,
        inflight: 2,
        message: 'this sandbox runs at most 2 concurrent invokes and 2 are in flight; retry after 5 seconds',
      });
      expect(elapsed).toBeLessThan(WITHIN_MS);

      // Nothing else changed: the same spec generation, the same Pod, the invokes still run.
      const after = await read(name);
      expect(after.metadata.generation).toBe(before.metadata.generation);
      expect(after.spec).toEqual(before.spec);
      expect(after.status?.phase).toBe('Running');
      const podAfter = await ns.core.readNamespacedPod({ name, namespace: ns.name });
      expect(podAfter.metadata?.uid).toBe(pod.metadata?.uid);
      expect(podAfter.status?.containerStatuses?.[0]?.restartCount).toBe(
        pod.status?.containerStatuses?.[0]?.restartCount,
      );
    } finally {
      for (const a of aborts) a.abort();
      await api.call('DELETE', `/governance/policies/${ns.name}`, { key: api.keys.admin });
    }
  }, 300_000);
});
