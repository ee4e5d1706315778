// Body limits on a real `svc api` process (its memory measured from /proc), with devnode,
// the operator and an agent sandbox: refusals always reach the caller (never ECONNRESET,
// even with both cores busy), configure streams instead of buffering, and JSON bodies are
// capped at 1 MiB while they are read.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Sandbox } from '../../core/index.ts';
import { eventually, type RunningSvc } from '../../stack/index.ts';
import {
  startApiProcess,
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('limits');
useDevnode(ns);
const template = useClusterTemplate('limits', ns, { agent: { maxConcurrentInvokes: 2 } });
useOperator(ns, { identity: 'limits-test', logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }) });
const MiB = 1024 * 1024;
let api: TestApi;
let served: RunningSvc;

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: 60_000 });
  served = await startApiProcess(inject('kubeconfigPath'), ns.name);
  const made = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name: 'agent', mode: 'agent', templateRef: { name: template } },
  });
  expect(made.status, await made.clone().text()).toBe(201);
  let s: Sandbox | undefined;
  await eventually(
    async () => {
      s = (await (await api.call('GET', '/sandboxes/agent', { key: api.keys.alice })).json()) as Sandbox;
      return s.status?.phase === 'Running';
    },
    { timeoutMs: 90_000, describe: () => `agent Running: ${JSON.stringify(s?.status)}` },
  );
}, 180_000);

afterAll(async () => {
  await served?.close();
  await api?.close();
}, 30_000);

/** The API process's resident memory, in MB. */
async function rssMb(): Promise<number> {
  const status = await readFile(`/proc/${served.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** Samples RSS every 20 ms while `work` runs: the peak. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ peak: number; result: T }> {
  let peak = await rssMb();
  let running = true;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, await rssMb());
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  let result: T;
  try {
    result = await work();
  } finally {
    running = false;
    await sampler;
  }
  return { peak: Math.max(peak, await rssMb()), result };
}

/**
 * One POST over node:http (which, unlike fetch, reports a reset as it happened): the
 * status and body, or the socket error. `chunked` sends no Content-Length.
 */
function post(
  path: string,
  body: Buffer,
  opts: { chunked?: boolean; key?: string } = {},
): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const url = new URL(`${served.url}/api/v1${path}?namespace=${ns.name}`);
    // A connection of its own: a kept-alive one from an earlier test may be closed by the
    // server's keep-alive timeout just as it is reused, which is not what is tested here.
    const req = request(url, {
      agent: false,
      method: 'POST',
      headers: {
        'x-api-key': opts.key ?? api.keys.alice,
        'content-type': 'application/json',
        ...(opts.chunked ? {} : { 'content-length': String(body.length) }),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', (err) => resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
    });
    req.on('error', (err) => resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
    // Written in 1 MiB pieces, as a client streaming a large file does.
    let at = 0;
    const pump = () => {
      while (at < body.length) {
        const piece = body.subarray(at, at + MiB);
        at += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

/**
 * The same POST for fetch (undici), made ahead of sending it: making a Request copies its byte
 * body (a quarter of a second of CPU for 129 MiB; the test's event loop stood still for tens of
 * seconds with the cores busy), so the copies are all made before any connection opens, not
 * while the server already counts the 30 s it gives a connection to send its headers (a 408
 * past it) and the test's own time.
 */
function fetchRequest(path: string, body: Buffer, key: string): Request {
  return new Request(`${served.url}/api/v1${path}?namespace=${ns.name}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body,
  });
}

/** Sends a `fetchRequest` through fetch, which fails the whole call on a reset connection. */
async function fetchPost(request: Request): Promise<{ status: number; body: string } | { error: string }> {
  try {
    const res = await fetch(request);
    return { status: res.status, body: await res.text() };
  } catch (err) {
    const cause = (err as { cause?: NodeJS.ErrnoException }).cause;
    return { error: cause?.code ?? String(err) };
  }
}

/** A configure body of `files` files of `size` bytes each ('x'), under the per-file limit. */
function configureOf(files: number, size: number): Buffer {
  const content = 'x'.repeat(size);
  const parts = Array.from({ length: files }, (_, i) => `{"path":"/workspace/f${i}","content":"${content}"}`);
  return Buffer.from(`{"entrypoint":["sh"],"files":[${parts.join(',')}]}`);
}

/** A 403 `policy_violation` naming configure_request_too_large, and nothing else. */
function expectRequestTooLarge(r: { status: number; body: string } | { error: string }): void {
  expect(r).not.toHaveProperty('error');
  const answer = r as { status: number; body: string };
  expect(answer.status).toBe(403);
  const body = JSON.parse(answer.body) as { error: string; violations: { code: string }[] };
  expect(body.error).toBe('policy_violation');
  expect(body.violations.map((v) => v.code)).toEqual(['configure_request_too_large']);
}

// The memory tests run first, on a fresh process, so nothing before them inflates its heap.
describe('body limits', () => {
  test('three concurrent 250 MB configures: memory grows by less than 300 MB and comes back', async () => {
    const body = configureOf(8, Math.floor(250_000_000 / 8));
    const before = await rssMb();
    const { peak, result } = await peakRss(() =>
      Promise.all([0, 1, 2].map(() => post('/sandboxes/agent/configure', body))),
    );
    for (const r of result) expectRequestTooLarge(r);
    let after = 0;
    await eventually(async () => (after = await rssMb()) - before < 100, {
      timeoutMs: 30_000,
      describe: () => `RSS back near ${before.toFixed(0)} MB: ${after.toFixed(0)} MB`,
    });
    console.log(
      JSON.stringify({
        bench: 'configure-3x250MB',
        rss_before_mb: Math.round(before),
        rss_peak_mb: Math.round(peak),
        rss_after_mb: Math.round(after),
        growth_mb: Math.round(peak - before),
      }),
    );
    expect(peak - before).toBeLessThan(300);
  }, 240_000);

  test('a 200 MB create body: 413 at once, no memory blow-up; chunked bodies stop at 1 MiB', async () => {
    const body = Buffer.alloc(200_000_000, 'a');
    const before = await rssMb();
    const started = performance.now();
    const { peak, result } = await peakRss(() => post('/sandboxes', body));
    const seconds = (performance.now() - started) / 1000;
    expect(result).toMatchObject({ status: 413 });
    expect(JSON.parse((result as { body: string }).body)).toEqual({
      error: 'payload_too_large',
      message: `the request body is larger than ${MiB} bytes`,
    });
    console.log(
      JSON.stringify({
        bench: 'create-200MB',
        seconds: +seconds.toFixed(2),
        growth_mb: Math.round(peak - before),
      }),
    );
    expect(peak - before).toBeLessThan(100);
    expect(seconds).toBeLessThan(30);

    const chunked = await post('/sandboxes', Buffer.alloc(3 * MiB, 'a'), { chunked: true });
    expect(chunked).toMatchObject({ status: 413 });
  }, 120_000);

  test('JSON bodies: exactly 1 MiB is read (400 for its content), one byte more is 413', async () => {
    const pad = (n: number) => {
      const head = '{"name":"x","templateRef":{"name":"t"},"pad":"';
      return Buffer.from(head + 'p'.repeat(n - head.length - 2) + '"}');
    };
    const at = await post('/sandboxes', pad(MiB));
    expect(at).toMatchObject({ status: 400 });
    const over = await post('/sandboxes', pad(MiB + 1));
    expect(over).toMatchObject({ status: 413 });
    for (const path of ['/apikeys', '/sandboxes/agent/ports', '/sandboxes/agent/invoke/cancel']) {
      expect(await post(path, pad(MiB + 1)), path).toMatchObject({ status: 413 });
    }
  }, 60_000);
  test('8 parallel over-limit configures with both cores busy: every one gets its 403 body', async () => {
    // 129 MiB of content: five files of 25.8 MiB.
    const body = configureOf(5, Math.ceil((129 * MiB) / 5));
    const path = '/sandboxes/agent/configure';
    const fetched = (key: string) => [0, 1, 2, 3].map(() => fetchRequest(path, body, key));
    const viaFetch = { alice: fetched(api.keys.alice), bob: fetched(api.keys.bob) };
    const load = [0, 1].map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
    try {
      // Half over node:http, half over fetch. Beside them, 8 refused before a byte of their body is read (bob is not the owner):
      // the whole body is still to come when the answer is ready.
      const [results, early] = await Promise.all([
        Promise.all(
          Array.from({ length: 8 }, (_, i) => (i % 2 ? post(path, body) : fetchPost(viaFetch.alice[i / 2]!))),
        ),
        Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            i % 2 ? post(path, body, { key: api.keys.bob }) : fetchPost(viaFetch.bob[i / 2]!),
          ),
        ),
      ]);
      for (const r of results) expectRequestTooLarge(r);
      for (const r of early) {
        expect(r).not.toHaveProperty('error');
        expect(r).toMatchObject({ status: 403 });
        expect(JSON.parse((r as { body: string }).body)).toMatchObject({ error: 'forbidden' });
      }
    } finally {
      for (const child of load) child.kill('SIGKILL');
    }
  }, 240_000);
});
