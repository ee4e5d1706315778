// Limits under parallel load on the real stack (API, operator, devnode, sandboxd): a
// per-user quota holds exactly through rounds of parallel creates, each started right after
// the previous round's sandboxes are gone, and an invoke cap lets exactly that many run.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GROUP, SseParser, VERSION, type Sandbox } from '../../core/index.ts';
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
import { pino } from 'pino';

const ns = useNamespace('limits');
useDevnode(ns);
const template = useClusterTemplate('limits', ns, { agent: { maxConcurrentInvokes: 2 } });
useOperator(ns, { identity: 'limits-test', logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }) });
let api: TestApi;
let base: string;

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: 60_000 });
  base = await api.serve();
}, 60_000);

afterAll(async () => {
  await api?.close();
}, 30_000);

const listed = async () =>
  (
    (await ns.custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'sandboxes',
      namespace: ns.name,
    })) as { items: Sandbox[] }
  ).items;

describe('limits under parallel load', () => {
  test('20 parallel creates against maxSandboxesPerUser 5: exactly 5, three rounds back to back', async () => {
    const put = await api.call('PUT', `/governance/policies/${ns.name}`, {
      key: api.keys.admin,
      body: { maxSandboxesPerUser: 5 },
    });
    expect(put.status, await put.clone().text()).toBe(200);
    for (const round of [1, 2, 3]) {
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          api.call('POST', '/sandboxes', {
            key: api.keys.alice,
            body: { name: `quota-r${round}-${i}`, templateRef: { name: template } },
          }),
        ),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201).length, `round ${round}: ${statuses.join(' ')}`).toBe(5);
      expect(statuses.filter((s) => s === 403).length, `round ${round}: ${statuses.join(' ')}`).toBe(15);
      for (const r of responses.filter((r) => r.status === 403)) {
        expect(await r.json()).toMatchObject({
          error: 'policy_violation',
          violations: [{ code: 'user_quota_exceeded' }],
        });
      }
      const mine = (await listed()).filter((s) => s.spec.createdBy === 'alice');
      expect(mine.map((s) => s.metadata.name).filter((n) => n?.startsWith(`quota-r${round}-`))).toHaveLength(
        5,
      );
      expect(mine).toHaveLength(5);
      for (const s of mine) {
        const deleted = await api.call('DELETE', `/sandboxes/${s.metadata.name}`, { key: api.keys.alice });
        expect(deleted.status).toBe(202);
      }
      // The next round starts the moment the last of them is gone.
      await eventually(async () => (await listed()).every((s) => s.spec.createdBy !== 'alice'), {
        timeoutMs: 60_000,
        describe: () => `round ${round}: alice's sandboxes deleted`,
      });
    }
  }, 240_000);

  test('10 parallel invokes against a cap of 2: exactly 2 run, 8 get the exact 429', async () => {
    const name = 'capped';
    const created = await api.call('POST', '/sandboxes', {
      key: api.keys.bob,
      body: { name, templateRef: { name: template }, mode: 'agent' },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    await waitForSandboxPhase(ns, name, 'Running');
    const configured = await fetch(`${base}/api/v1/sandboxes/${name}/configure?namespace=${ns.name}`, {
      method: 'POST',
      headers: { 'x-api-key': api.keys.bob, accept: 'text/event-stream' },
      body: JSON.stringify({
        files: [{ path: '/workspace/agent.sh', content: 'echo running; while :; do sleep 0.05; done\n' }],
        entrypoint: ['sh', '/workspace/agent.sh'],
      }),
    });
    const result = new SseParser().push(await configured.text()).at(-1);
    expect(result?.event).toBe('result');
    expect(JSON.parse(result!.data)).toMatchObject({ maxConcurrentInvokes: 2 });

    // Each invoke settles once it is running (its first output) or refused.
    const aborts = Array.from({ length: 10 }, () => new AbortController());
    const outcomes = await Promise.all(
      aborts.map(async (abort) => {
        const res = await fetch(`${base}/api/v1/sandboxes/${name}/invoke?namespace=${ns.name}`, {
          method: 'POST',
          headers: { 'x-api-key': api.keys.bob, accept: 'text/event-stream' },
          body: '',
          signal: abort.signal,
        });
        if (res.status !== 200) return { status: res.status, body: await res.json() };
        // Read without letting go of the stream: ending it early would cancel the invoke.
        const reader = (res.body as ReadableStream<Uint8Array>).getReader();
        const decoder = new TextDecoder();
        let text = '';
        while (!text.includes('running')) {
          const chunk = await reader.read();
          if (chunk.done) break;
          text += decoder.decode(chunk.value, { stream: true });
        }
        return { status: 200, running: text.includes('running') };
      }),
    );
    try {
      expect(outcomes.filter((o) => o.status === 200 && o.running)).toHaveLength(2);
      const refused = outcomes.filter((o) => o.status === 429);
      expect(refused).toHaveLength(8);
      for (const r of refused) {
        expect(r.body).toEqual({
          error: 'concurrency_exceeded',
          limit: 2,
          inflight: 2,
          message:
            'this sandbox runs at most 2 concurrent invokes and 2 are in flight; retry after 5 seconds',
        });
      }
      // A 16 MiB invoke, sent chunked, on the full sandbox: the 429 comes before any of its
      // body is read (the stream is pulled only when read).
      let pulled = 0;
      const stdin = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            if (pulled >= 16 * 1024 * 1024) return controller.close();
            pulled += 64 * 1024;
            controller.enqueue(new Uint8Array(64 * 1024));
          },
        },
        { highWaterMark: 0 },
      );
      const oversized = await api.app.request(`/api/v1/sandboxes/${name}/invoke?namespace=${ns.name}`, {
        method: 'POST',
        headers: { 'x-api-key': api.keys.bob, accept: 'text/event-stream' },
        body: stdin,
        duplex: 'half',
      });
      expect(oversized.status).toBe(429);
      expect(oversized.headers.get('retry-after')).toBe('5');
      expect(await oversized.json()).toMatchObject({ error: 'concurrency_exceeded', limit: 2, inflight: 2 });
      expect(pulled).toBe(0);
    } finally {
      for (const a of aborts) a.abort();
    }
  }, 180_000);
});
