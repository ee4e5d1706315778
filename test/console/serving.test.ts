// The console as the API serves it (its shell, hashed assets, headers, gzip) and the
// watch stream its list is built on (`GET /sandboxes?watch=true`), on the real control plane.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseParser, type Sandbox } from '../../core/index.ts';
import { CONTENT_SECURITY_POLICY } from '../../api/console/routes.ts';
import { startTestApi, useNamespace, type TestApi } from '../support/index.ts';

const ns = useNamespace('console-serve');
const dir = resolve(import.meta.dirname, '../../dist/console');
let api: TestApi;
let base: string;

beforeAll(async () => {
  if (!existsSync(join(dir, 'index.html')))
    throw new Error(`the console is not built in ${dir}: run make console`);
  api = await startTestApi(ns, { console: { dir } });
  base = await api.serve();
});
afterAll(async () => api?.close());

describe('serving the console', () => {
  it('serves the shell at / with the CSP, no-cache, and gzip when asked', async () => {
    const res = await fetch(`${base}/`, { headers: { 'accept-encoding': 'identity' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("connect-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    // No inline script: the only script is an asset with a hashed name.
    expect([...html.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([
      expect.stringMatching(
        /^<script type="module" src="\/assets\/main-[A-Z0-9]+\.js"><\/script>$|^<script type="module" src="\/assets\/main-[A-Z0-9]+\.js">$/,
      ),
    ]);
    expect(html).not.toMatch(/<script>|\son[a-z]+=/);

    // Node's fetch decodes gzip itself; ask for it and read the raw bytes with node:http semantics.
    const gz = await rawGet(`${base}/`, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toBe('accept-encoding');
    expect(gunzipSync(gz.body).toString()).toBe(html);
  });

  it('serves each hashed asset immutable for a year, and 404 for any other name', async () => {
    const names = readdirSync(join(dir, 'assets')).filter((n) => !n.endsWith('.gz'));
    expect(names.some((n) => /^main-[A-Z0-9]+\.js$/.test(n))).toBe(true);
    for (const name of names) {
      const res = await fetch(`${base}/assets/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      await res.arrayBuffer();
    }
    for (const bad of ['nope.js', '..%2Findex.html', '%2e%2e%2f%2e%2e%2fpackage.json']) {
      const res = await fetch(`${base}/assets/${bad}`);
      expect(res.status, bad).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'not_found' });
    }
  });

  it('sends its headers on the console’s paths only, never on the API’s', async () => {
    for (const path of ['/healthz', '/api/v1/sandboxes']) {
      const res = await fetch(`${base}${path}`, { headers: { 'x-api-key': api.keys.alice } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-security-policy'), path).toBeNull();
      await res.arrayBuffer();
    }
    const missing = await fetch(`${base}/nothing-here`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-security-policy')).toBeNull();
  });

  it('says how to sign in: no OIDC here', async () => {
    const res = await fetch(`${base}/console/config.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ oidc: null });
    const token = await fetch(`${base}/console/oidc/token`, { method: 'POST', body: '{}' });
    expect(token.status).toBe(404);
  });
});

describe('GET /api/v1/sandboxes?watch=true', () => {
  it('streams the caller’s sandboxes, then their changes; never another user’s', async () => {
    const create = async (key: string, name: string) =>
      expect(
        (await api.call('POST', '/sandboxes', { key, body: { name, templateRef: { name: 'default' } } }))
          .status,
      ).toBe(201);
    await create(api.keys.alice, 'w-alice-1');
    await create(api.keys.bob, 'w-bob-1');

    const stop = new AbortController();
    const res = await fetch(`${base}/api/v1/sandboxes?watch=true&namespace=${ns.name}`, {
      headers: { 'x-api-key': api.keys.alice, accept: 'text/event-stream' },
      signal: stop.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = readEvents(res.body!);
    const first = await events.next();
    expect(first).toMatchObject({ event: 'added', name: 'w-alice-1' });

    await create(api.keys.bob, 'w-bob-2');
    await create(api.keys.alice, 'w-alice-2');
    // The next event about anything is alice's new sandbox: bob's never arrive.
    expect(await events.next()).toMatchObject({ event: 'added', name: 'w-alice-2' });
    const del = await api.call('DELETE', '/sandboxes/w-alice-2', { key: api.keys.alice });
    expect(del.status).toBe(202);
    let ev = await events.next();
    // A finalizer may make the delete an update first (deletionTimestamp), shown as deleted.
    while (ev.event !== 'deleted') ev = await events.next();
    expect(ev).toMatchObject({ event: 'deleted', name: 'w-alice-2' });
    expect(events.seen.every((e) => e.name.startsWith('w-alice'))).toBe(true);
    await events.cancel();
    stop.abort();
  });

  it('shows an admin every user’s sandboxes', async () => {
    const res = await fetch(`${base}/api/v1/sandboxes?watch=true&namespace=${ns.name}`, {
      headers: { 'x-api-key': api.keys.admin, accept: 'text/event-stream' },
    });
    expect(res.status).toBe(200);
    const events = readEvents(res.body!);
    // The first events list what is there: both users' sandboxes, each `added`. A missing one
    // fails at next()'s deadline, naming what came.
    const names = new Set<string>();
    while (!(names.has('w-alice-1') && names.has('w-bob-1'))) {
      const e = await events.next();
      expect(e.event, e.name).toBe('added');
      names.add(e.name);
    }
    await events.cancel();
  });

  it('refuses a watch without Accept: text/event-stream, or with phase, naming the field (400)', async () => {
    const plain = await api.call('GET', '/sandboxes?watch=true', { key: api.keys.alice });
    expect(plain.status).toBe(400);
    expect(await plain.json()).toMatchObject({
      error: 'invalid_request',
      fields: [{ path: 'watch', message: 'needs Accept: text/event-stream' }],
    });
    const phase = await api.call('GET', '/sandboxes?watch=true&phase=Running', {
      key: api.keys.alice,
      headers: { accept: 'text/event-stream' },
    });
    expect(phase.status).toBe(400);
    expect(await phase.json()).toMatchObject({ fields: [{ path: 'phase' }] });
    const bad = await api.call('GET', '/sandboxes?watch=yes', { key: api.keys.alice });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ fields: [{ path: 'watch' }] });
    const anonymous = await fetch(`${base}/api/v1/sandboxes?watch=true`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(anonymous.status).toBe(401);
  });
});

/**
 * The stream's events one at a time (keepalive comments skipped), each within 30 s: a read
 * that takes longer fails the test, naming the events seen so far (not the test's timeout).
 */
function readEvents(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const queue: { event: string; name: string; sandbox: Sandbox }[] = [];
  const seen: typeof queue = [];
  return {
    seen,
    cancel: () => reader.cancel(),
    async next(): Promise<{ event: string; name: string; sandbox: Sandbox }> {
      const deadline = AbortSignal.timeout(30_000);
      const late = new Promise<never>((_, reject) =>
        deadline.addEventListener('abort', () =>
          reject(
            new Error(`no event within 30 s; seen: ${JSON.stringify(seen.map((e) => [e.event, e.name]))}`),
          ),
        ),
      );
      late.catch(() => undefined);
      while (queue.length === 0) {
        const chunk = await Promise.race([reader.read(), late]);
        if (chunk.done)
          throw new Error(`the stream ended; seen: ${JSON.stringify(seen.map((e) => [e.event, e.name]))}`);
        for (const m of parser.push(decoder.decode(chunk.value, { stream: true }))) {
          const sandbox = JSON.parse(m.data) as Sandbox;
          const e = { event: m.event, name: sandbox.metadata.name!, sandbox };
          queue.push(e);
          seen.push(e);
        }
      }
      return queue.shift()!;
    },
  };
}

async function rawGet(url: string, headers: Record<string, string>) {
  const { request } = await import('node:http');
  return new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>((ok, fail) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok({ headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', fail);
    })
      .on('error', fail)
      .end();
  });
}
