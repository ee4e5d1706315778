// A clone of a configured agent sandbox (issue 38): the clone's harness install reruns in its
// own Pod before the clone says Running, so an invoke the moment it is Running runs the
// entrypoint (never 424 `not_configured`, which the spec keeps for "no entrypoint ever
// configured"). Real API, operator, devnode and sandboxd.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SseParser, type CloneResponse } from '../../core/index.ts';
import {
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  waitForSandboxPhase,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('agentclone');
useDevnode(ns);
const template = useClusterTemplate('agentclone', ns, {});
useOperator(ns, { identity: 'agent-clone', logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }) });

/** How long a wait on the cluster may take on a loaded two-core machine. */
const SLOW = 120_000;
let api: TestApi;
let base: string;

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: SLOW });
  base = await api.serve();
}, SLOW);
afterAll(async () => api?.close(), 30_000);

interface Streamed {
  status: number;
  events: { event: string; data: Record<string, unknown> }[];
  body?: unknown;
}

/** A streaming agent call over real HTTP, read to its end. */
async function sse(path: string, body: string): Promise<Streamed> {
  const res = await fetch(`${base}/api/v1/sandboxes/${path}?namespace=${ns.name}`, {
    method: 'POST',
    headers: { accept: 'text/event-stream', 'x-api-key': api.keys.alice },
    body,
  });
  if (!res.headers.get('content-type')?.startsWith('text/event-stream'))
    return { status: res.status, events: [], body: await res.json() };
  const parser = new SseParser();
  const events: Streamed['events'] = [];
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
    for (const m of parser.push(decoder.decode(chunk, { stream: true })))
      events.push({ event: m.event, data: JSON.parse(m.data) as Record<string, unknown> });
  return { status: res.status, events };
}

describe('a clone of a configured agent sandbox', () => {
  test('is Running only once its install reran: an invoke at once runs the entrypoint', async () => {
    const created = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: { name: 'src', mode: 'agent', templateRef: { name: template } },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    await waitForSandboxPhase(ns, 'src', 'Running', SLOW);
    // A slow install (2 s) holds the window open where a clone would be Running unconfigured.
    const configured = await sse(
      'src/configure',
      JSON.stringify({
        files: [{ path: '/workspace/agent.sh', content: 'cat /workspace/install.count\n' }],
        entrypoint: ['sh', '/workspace/agent.sh'],
        installCommand: ['sh', '-c', 'sleep 2; echo run >> /workspace/install.count'],
      }),
    );
    expect(configured.status, JSON.stringify(configured.body)).toBe(200);
    expect(configured.events.at(-1)).toMatchObject({ event: 'result', data: { installExitCode: 0 } });

    const cloned = await api.call('POST', '/sandboxes/src/clone', {
      key: api.keys.alice,
      body: { name: 'copy' },
    });
    expect(cloned.status, await cloned.clone().text()).toBe(202);
    expect(((await cloned.json()) as CloneResponse).name).toBe('copy');
    // The moment the API itself sees the clone Running, as a client polling it would.
    await api.deps.cache.until(ns.name, 'copy', (s) => s?.status?.phase === 'Running', SLOW);
    const invoked = await sse('copy/invoke', '');
    expect(invoked.status, JSON.stringify(invoked.body)).toBe(200);
    const stdout = invoked.events
      .filter((e) => e.event === 'log' && e.data.stream === 'stdout')
      .map((e) => e.data.data)
      .join('');
    // The source's install, copied with its workspace, then the clone's own rerun.
    expect(stdout).toBe('run\nrun\n');
    expect(invoked.events.find((e) => e.event === 'exit')?.data).toMatchObject({ exitCode: 0 });
    const copy = await api.deps.sandboxes.read(ns.name, 'copy');
    expect(copy?.status?.agentConfigure).toMatchObject({
      entrypoint: ['sh', '/workspace/agent.sh'],
      installExitCode: 0,
    });
  }, 300_000);
});
