import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { kubeRequest, startTestApi, useNamespace, type TestApi } from '../support/index.ts';

const ns = useNamespace('api-preview');
let api: TestApi;
let base: string;
let upstream: Server;
const seen: { headers: Record<string, string | string[] | undefined>; url: string }[] = [];
const BIG = 50 * 1024 * 1024;

/** An HTTP + WebSocket server standing where devnode's Service address points. */
async function startUpstream(): Promise<Server> {
  const server = createServer((req, res) => {
    seen.push({ headers: req.headers, url: req.url ?? '' });
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(BIG) });
      const chunk = Buffer.alloc(1024 * 1024, 7);
      let sent = 0;
      const pump = () => {
        while (sent < BIG) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      res.end(JSON.stringify({ method: req.method, url: req.url, body: Buffer.concat(chunks).toString() }));
    });
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket) => socket.on('message', (data, binary) => socket.send(data, { binary })));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

beforeAll(async () => {
  upstream = await startUpstream();
  api = await startTestApi(ns);
  base = await api.serve();
  for (const [name, phase] of [
    ['web', 'Running'],
    ['asleep', 'Stopped'],
  ]) {
    const made = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: { name, templateRef: { name: 'default' }, ports: [{ port: 8080 }] },
    });
    expect(made.status).toBe(201);
    const res = await kubeRequest(ns.kc, {
      method: 'PATCH',
      path: `/apis/svc.io/v1alpha1/namespaces/${ns.name}/sandboxes/${name}/status`,
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { status: { phase, forwardedPorts: [{ port: 8080, protocol: 'http', internalUrl: 'x' }] } },
    });
    expect(res.status).toBe(200);
  }
  const port = (upstream.address() as AddressInfo).port;
  await ns.core.createNamespacedService({
    namespace: ns.name,
    body: {
      metadata: {
        name: 'pf-web-8080',
        annotations: { 'devnode.svc.io/host-address': `8080=127.0.0.1:${port}` },
      },
      spec: { ports: [{ port: 8080 }], selector: { 'svc.io/sandbox': 'web' } },
    },
  });
  await api.deps.cache.until(ns.name, 'asleep', (s) => s?.status?.phase === 'Stopped', 10_000);
});
afterAll(async () => {
  await api.close();
  upstream.close();
});

const url = (sandbox: string, rest: string) => `${base}/api/v1/sandboxes/${sandbox}/preview/8080${rest}`;
const nsq = () => `namespace=${ns.name}`;

describe('preview proxy', () => {
  it('streams a 50 MiB GET body intact', async () => {
    const res = await fetch(url('web', `/big?${nsq()}`), { headers: { 'x-api-key': api.keys.alice } });
    expect(res.status).toBe(200);
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      bytes += chunk.length;
    }
    expect(bytes).toBe(BIG);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(Buffer.alloc(BIG, 7)).digest('hex'));
  });

  it('passes a POST with its body, path and query, and strips the caller credentials', async () => {
    const res = await fetch(url('web', `/submit/form?x=1&${nsq()}`), {
      method: 'POST',
      headers: { 'x-api-key': api.keys.alice, 'content-type': 'text/plain', 'x-custom': 'kept' },
      body: 'hello sandbox',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-upstream')).toBe('yes');
    expect(await res.json()).toEqual({ method: 'POST', url: '/submit/form?x=1', body: 'hello sandbox' });
    const last = seen.at(-1)!;
    expect(last.headers['x-api-key']).toBeUndefined();
    expect(last.headers.authorization).toBeUndefined();
    expect(last.headers['x-custom']).toBe('kept');
  });

  it('echoes over a WebSocket', async () => {
    const socket = new WebSocket(url('web', `/ws?${nsq()}`).replace('http', 'ws'), {
      headers: { 'x-api-key': api.keys.alice },
    });
    await once(socket, 'open');
    socket.send('ping over preview');
    const [data] = (await once(socket, 'message')) as [Buffer];
    expect(data.toString()).toBe('ping over preview');
    socket.close();
    expect(seen.at(-1)?.headers['x-api-key']).toBeUndefined();
  });

  it('refuses a WebSocket from another user with 403', async () => {
    const socket = new WebSocket(url('web', `/ws?${nsq()}`).replace('http', 'ws'), {
      headers: { 'x-api-key': api.keys.bob },
    });
    // With an 'unexpected-response' listener, ws leaves the refused response to the caller.
    const [, res] = (await once(socket, 'unexpected-response')) as [unknown, IncomingMessage];
    expect(res.statusCode).toBe(403);
    res.destroy();
  });

  it('401 anonymous, 403 another user, 404 a port not forwarded, 409 not running', async () => {
    expect((await fetch(url('web', `/?${nsq()}`))).status).toBe(401);
    expect((await fetch(url('web', `/?${nsq()}`), { headers: { 'x-api-key': api.keys.bob } })).status).toBe(
      403,
    );
    const other = `${base}/api/v1/sandboxes/web/preview/9090/?${nsq()}`;
    expect((await fetch(other, { headers: { 'x-api-key': api.keys.alice } })).status).toBe(404);
    const res = await fetch(url('asleep', `/?${nsq()}`), { headers: { 'x-api-key': api.keys.alice } });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: 'not_running' });
  });
});
