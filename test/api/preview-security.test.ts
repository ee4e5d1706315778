// Previews cannot act as the API: an echo server inside a real sandbox (devnode, operator)
// records what the preview proxy sends it. The caller's API key, bearer token and cookies
// never arrive; X-Forwarded-For is ours; every response is a sandboxed document; the app's
// cookies are dropped; an encoded sandbox id reaches the right place; sandboxd's port is
// never forwarded; and no error shows an internal address.
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import type { Sandbox } from '../../core/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('preview-sec');
useDevnode(ns);
let api: TestApi;
let base: string;

// The app: answers every request with what it received (method, url, headers) and sets a
// cookie; answers a WebSocket upgrade by hand (no dependency) and records its headers.
const SERVER = `
const { createServer } = require('node:http');
const { createHash } = require('node:crypto');
let lastUpgrade = null;
const server = createServer((req, res) => {
  if (req.url === '/last-upgrade') return res.end(JSON.stringify(lastUpgrade));
  const parts = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'app=1; Path=/' });
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }));
  });
});
server.on('upgrade', (req, socket) => {
  lastUpgrade = req.headers;
  const accept = createHash('sha1').update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
  socket.write('HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: ' + accept + '\\r\\n\\r\\n');
});
server.listen(8080, '127.0.0.1');
`;
const template = useClusterTemplate('preview-sec', ns, {
  command: [
    'sh',
    '-c',
    'while [ ! -f /workspace/server.js ]; do sleep 0.1; done; exec node /workspace/server.js',
  ],
});
useOperator(ns, { identity: 'preview-sec', logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }) });

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: 60_000 });
  base = await api.serve();
  const made = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name: 'web', templateRef: { name: template } },
  });
  expect(made.status, await made.clone().text()).toBe(201);
  let s: Sandbox | undefined;
  await eventually(
    async () => {
      s = (await (await api.call('GET', '/sandboxes/web', { key: api.keys.alice })).json()) as Sandbox;
      return s.status?.phase === 'Running';
    },
    { timeoutMs: 90_000, describe: () => `web Running: ${JSON.stringify(s?.status)}` },
  );
  const sandboxd = await api.deps.sandboxd.client(ns.name, 'web');
  expect(
    (await sandboxd.writeFiles([{ path: '/workspace/server.js', content: Buffer.from(SERVER) }])).status,
  ).toBe(200);
  for (const port of [8080, 8081]) {
    const res = await api.call('POST', '/sandboxes/web/ports', { key: api.keys.alice, body: { port } });
    expect(res.status, await res.clone().text()).toBe(201);
  }
  await eventually(
    async () =>
      (await fetch(preview('web', 8080, '/ready'), { headers: { 'x-api-key': api.keys.alice } })).ok,
    { timeoutMs: 30_000, describe: () => 'the server inside the sandbox to answer' },
  );
}, 180_000);
afterAll(() => api?.close(), 30_000);

const preview = (id: string, port: number, rest: string) =>
  `${base}/api/v1/sandboxes/${id}/preview/${port}${rest}${rest.includes('?') ? '&' : '?'}namespace=${ns.name}`;

/** No internal address: neither the Service's DNS name, nor a loopback or pod address. */
const INTERNAL = /svc\.cluster\.local|127\.0\.0\.1|\b10\.\d+\.\d+\.\d+|:\d{4,5}\//;

interface Echo {
  method: string;
  url: string;
  headers: Record<string, string>;
}

describe('preview security', () => {
  test('the caller credentials and cookies never reach the app; X-Forwarded-For is ours; CSP on every response; Set-Cookie dropped', async () => {
    const res = await fetch(preview('web', 8080, '/echo?x=1'), {
      method: 'POST',
      headers: {
        'x-api-key': api.keys.alice,
        authorization: 'Bearer not-for-the-app',
        cookie: 'svc_session=secret-session; other=1',
        'x-forwarded-for': '203.0.113.7',
        'x-real-ip': '203.0.113.7',
        forwarded: 'for=203.0.113.7',
        'x-custom': 'kept',
      },
      body: 'hello',
    });
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy');
    expect(csp).toBe('sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads');
    expect(csp).not.toContain('allow-same-origin');
    expect(res.headers.get('set-cookie')).toBeNull();
    const echo = (await res.json()) as Echo;
    expect(echo.method).toBe('POST');
    expect(echo.url).toBe('/echo?x=1');
    expect(echo.headers['x-custom']).toBe('kept');
    for (const name of ['x-api-key', 'authorization', 'cookie', 'x-real-ip', 'forwarded'])
      expect(echo.headers, name).not.toHaveProperty(name);
    expect(echo.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(echo.headers['x-forwarded-prefix']).toBe('/api/v1/sandboxes/web/preview/8080');
    expect(JSON.stringify(echo)).not.toContain(api.keys.alice);
    expect(JSON.stringify(echo)).not.toContain('secret-session');
  });

  test('a WebSocket upgrade forwards neither the key nor cookies', async () => {
    const socket = new WebSocket(preview('web', 8080, '/ws').replace('http', 'ws'), {
      headers: {
        'x-api-key': api.keys.alice,
        authorization: 'Bearer not-for-the-app',
        cookie: 'svc_session=secret-session',
        'x-forwarded-for': '203.0.113.7',
      },
    });
    await once(socket, 'open');
    socket.terminate();
    const res = await fetch(preview('web', 8080, '/last-upgrade'), {
      headers: { 'x-api-key': api.keys.alice },
    });
    const headers = (await res.json()) as Record<string, string>;
    expect(headers.upgrade).toBe('websocket');
    for (const name of ['x-api-key', 'authorization', 'cookie'])
      expect(headers, name).not.toHaveProperty(name);
    expect(headers['x-forwarded-for']).toBe('127.0.0.1');
  });

  test('an encoded sandbox id reaches that sandbox with the path intact', async () => {
    // %77 is "w": the id decodes to "web", three characters, as its raw form is five.
    for (const id of ['%77eb', 'w%65b', '%77%65%62']) {
      const res = await fetch(preview(id, 8080, '/x/y%2Fz'), { headers: { 'x-api-key': api.keys.alice } });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      expect((JSON.parse(text) as Echo).url).toBe('/x/y%2Fz');
    }
    const bare = await fetch(`${base}/api/v1/sandboxes/%77eb/preview/8080?namespace=${ns.name}`, {
      headers: { 'x-api-key': api.keys.alice },
    });
    expect(bare.status).toBe(200);
    expect(((await bare.json()) as Echo).url).toBe('/');
  });

  test('an upstream that does not answer: 502 with no internal address', async () => {
    // 8081 is forwarded, but nothing listens on it.
    const res = await fetch(preview('web', 8081, '/'), { headers: { 'x-api-key': api.keys.alice } });
    const text = await res.text();
    expect(res.status, text).toBe(502);
    expect(JSON.parse(text)).toEqual({
      error: 'bad_gateway',
      message: 'port 8081 of the sandbox did not answer',
    });
    expect(text).not.toMatch(INTERNAL);
  });

  test("sandboxd's port 9000 is never forwarded nor previewed", async () => {
    const res = await api.call('POST', '/sandboxes/web/ports', { key: api.keys.alice, body: { port: 9000 } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request', fields: [{ path: 'port' }] });
    const admin = await api.call('POST', '/sandboxes/web/ports', {
      key: api.keys.admin,
      body: { port: 9000 },
    });
    expect(admin.status).toBe(400);
    const s = (await (await api.call('GET', '/sandboxes/web', { key: api.keys.alice })).json()) as Sandbox;
    expect((s.spec.ports ?? []).map((p) => p.port)).not.toContain(9000);
    const previewed = await fetch(preview('web', 9000, '/healthz'), {
      headers: { 'x-api-key': api.keys.alice },
    });
    expect(previewed.status).toBe(400);
    const socket = new WebSocket(preview('web', 9000, '/').replace('http', 'ws'), {
      headers: { 'x-api-key': api.keys.alice },
    });
    const [, refused] = (await once(socket, 'unexpected-response')) as [unknown, IncomingMessage];
    expect(refused.statusCode).toBe(400);
    refused.destroy();
  });
});
