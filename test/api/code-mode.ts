// Helpers of the exec and logs suites: streaming calls over real HTTP, and waits on a
// sandbox's sandboxd. Not a test file.
import { expect } from 'vitest';
import { SseParser, type SseMessage } from '../../core/index.ts';
import { eventually } from '../../stack/index.ts';
import type { TestApi, TestNamespace } from '../support/index.ts';

/** How long a wait on the cluster may take on a loaded two-core machine. */
export const SLOW = 120_000;

export interface Streamed {
  status: number;
  headers: Headers;
  events: { event: string; data: Record<string, unknown> }[];
  body?: Record<string, unknown>;
}

/**
 * A call over real HTTP asking for `text/event-stream`; a JSON answer (a refusal) comes back
 * as `body`. `onEvent` sees each event as it arrives (and may abort `signal`).
 */
export async function sse(
  base: string,
  ns: TestNamespace,
  method: string,
  path: string,
  opts: { body?: string; key?: string; signal?: AbortSignal; onEvent?: (e: SseMessage) => void } = {},
): Promise<Streamed> {
  const sep = path.includes('?') ? '&' : '?';
  const res = await fetch(`${base}/api/v1${path}${sep}namespace=${ns.name}`, {
    method,
    headers: {
      accept: 'text/event-stream',
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
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
      body: (await res.json()) as Streamed['body'],
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

/** The text of one output stream of a run's `log` events. */
export const output = (s: Streamed, stream: 'stdout' | 'stderr' = 'stdout') =>
  s.events
    .filter((e) => e.event === 'log' && e.data.stream === stream)
    .map((e) => e.data.data)
    .join('');

/** Waits until the API reaches the sandbox's sandboxd (a Running phase can come a moment before). */
export async function reachable(api: TestApi, ns: TestNamespace, name: string): Promise<void> {
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

/** Creates a sandbox as alice through the API and expects 201. */
export async function createAs(api: TestApi, key: string, body: object): Promise<Record<string, unknown>> {
  const res = await api.call('POST', '/sandboxes', { key, body });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Record<string, unknown>;
}
