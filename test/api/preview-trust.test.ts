// What a sandbox, or whoever may write objects in its namespace, cannot make the API trust:
// a ticket it signed with its own sandboxd token (which code inside the sandbox can read),
// devnode's host-address annotation on a Service when the API does not run in devnode mode,
// and a preview WebSocket opened from another site's page. On the real control plane; the
// sandboxes are Running by a status patch, their app a listener of the test's own.
import { createHmac, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { sandboxdToken, type Sandbox } from '../../core/index.ts';
import { SandboxdKeySecret } from '../../kube/index.ts';
import { kubeRequest, startTestApi, useNamespace, type TestApi } from '../support/index.ts';

const ns = useNamespace('api-preview-trust');
let api: TestApi;
let base: string;
let upstream: Server;
let address = '';
const seen: string[] = [];

async function startUpstream(): Promise<Server> {
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('reached the listener');
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket) => socket.on('message', (data) => socket.send(data)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** A sandbox made through the API, Running by a status patch, its port's Service annotated by devnode's rule. */
async function fakeRunning(name: string, port: number, o: { headless?: boolean } = {}): Promise<Sandbox> {
  const made = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name, templateRef: { name: 'default' }, ports: [{ port }] },
  });
  expect(made.status, await made.clone().text()).toBe(201);
  const res = await kubeRequest(ns.kc, {
    method: 'PATCH',
    path: `/apis/svc.io/v1alpha1/namespaces/${ns.name}/sandboxes/${name}/status`,
    headers: { 'content-type': 'application/merge-patch+json' },
    body: { status: { phase: 'Running', forwardedPorts: [{ port, protocol: 'http', internalUrl: 'x' }] } },
  });
  expect(res.status).toBe(200);
  await ns.core.createNamespacedService({
    namespace: ns.name,
    body: {
      metadata: {
        name: `pf-${name}-${port}`,
        annotations: { 'devnode.svc.io/host-address': `${port}=${address}` },
      },
      spec: {
        ports: [{ port }],
        selector: { 'svc.io/sandbox': name },
        ...(o.headless ? { clusterIP: 'None' } : {}),
      },
    },
  });
  return api.deps.cache.until(
    ns.name,
    name,
    (s) => s?.status?.phase === 'Running',
    10_000,
  ) as Promise<Sandbox>;
}

beforeAll(async () => {
  upstream = await startUpstream();
  address = `127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  await new SandboxdKeySecret({ kc: ns.kc, namespace: ns.name }).ensure();
  api = await startTestApi(ns);
  base = await api.serve();
});
afterAll(async () => {
  await api?.close();
  upstream?.close();
});

const previewPath = (sandbox: string, port: number) => `/api/v1/sandboxes/${sandbox}/preview/${port}`;

const answer = async (res: Response) => ({ status: res.status, body: await res.text() });

/** A WebSocket's handshake: refused (status and body) or open (then closed again). */
async function handshake(socket: WebSocket): Promise<{ status: number; body?: unknown }> {
  const outcome = await Promise.race([
    once(socket, 'open').then(() => undefined),
    once(socket, 'unexpected-response').then(([, res]) => res as IncomingMessage),
  ]);
  if (!outcome) {
    socket.terminate();
    return { status: 101 };
  }
  const parts: Buffer[] = [];
  for await (const part of outcome) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString();
  return { status: outcome.statusCode ?? 0, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/**
 * A ticket as the API signed them before: HMAC-SHA256 keyed by HMAC(sandbox's sandboxd
 * token, `svc <purpose> ticket v1`). Code inside the sandbox holds that token.
 */
function forge(
  token: string,
  purpose: 'terminal' | 'preview' | 'preview-session',
  sandbox: Sandbox,
  port?: number,
): string {
  const claims = {
    v: 1,
    sub: 'mallory',
    groups: [],
    admin: true,
    ns: ns.name,
    sb: sandbox.metadata.name,
    uid: sandbox.metadata.uid,
    ...(port !== undefined ? { port } : {}),
    exp: Date.now() + 60_000,
    jti: randomUUID(),
  };
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const key = createHmac('sha256', token).update(`svc ${purpose} ticket v1`).digest();
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

describe('what the API does not trust', () => {
  it('a ticket or preview cookie signed with the sandbox’s own token is refused (401 invalid_ticket)', async () => {
    const sandbox = await fakeRunning('forged', 8080);
    // The token as sandboxd holds it: derived from the installation's key, read here as admin.
    const key = await new SandboxdKeySecret({ kc: ns.kc, namespace: ns.name, ttlMs: 0 }).read();
    const token = sandboxdToken(key, { namespace: ns.name, name: 'forged', uid: sandbox.metadata.uid! });
    const refused = {
      status: 401,
      body: JSON.stringify({ error: 'invalid_ticket', message: 'the ticket is not valid' }),
    };

    const ticket = forge(token, 'preview', sandbox, 8080);
    const exchange = await fetch(
      `${base}${previewPath('forged', 8080)}/?namespace=${ns.name}&ticket=${encodeURIComponent(ticket)}`,
      { redirect: 'manual' },
    );
    expect(await answer(exchange)).toEqual(refused);

    const cookie = forge(token, 'preview-session', sandbox, 8080);
    const page = await fetch(`${base}${previewPath('forged', 8080)}/?namespace=${ns.name}`, {
      headers: { cookie: `svc_preview=${cookie}` },
      redirect: 'manual',
    });
    expect(await answer(page)).toEqual(refused);

    const terminal = new WebSocket(
      `${base.replace('http', 'ws')}/api/v1/sandboxes/forged/terminal?namespace=${ns.name}&ticket=${encodeURIComponent(forge(token, 'terminal', sandbox))}`,
    );
    expect(await handshake(terminal)).toEqual({ status: 401, body: JSON.parse(refused.body) as unknown });
    expect(seen).not.toContain('/');

    // The API's own ticket for the same port still opens it.
    const issued = await api.call('POST', '/sandboxes/forged/ports/8080/preview-ticket', {
      key: api.keys.alice,
    });
    expect(issued.status).toBe(200);
    const { url } = (await issued.json()) as { url: string };
    expect((await fetch(`${base}${url}`, { redirect: 'manual' })).status).toBe(303);
  });

  it('outside devnode mode a Service’s host-address annotation does not redirect the preview', async () => {
    await fakeRunning('redirect', 8080);
    const service = await ns.core.readNamespacedService({ name: 'pf-redirect-8080', namespace: ns.name });
    const clusterIp = service.spec!.clusterIP!;
    expect(clusterIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    // The test stack runs in devnode mode: there the annotation is the way to the app.
    const dev = await fetch(`${base}${previewPath('redirect', 8080)}/dev?namespace=${ns.name}`, {
      headers: { 'x-api-key': api.keys.alice },
    });
    expect(dev.status).toBe(200);
    expect(seen).toContain('/dev');

    // No request goes to the ClusterIP (the Service range is no address of this machine):
    // a headless Service, annotated the same way, shows what the API does with the
    // annotation alone. It answers 502 (no cluster IP) and never reaches the listener.
    await fakeRunning('headless', 8080, { headless: true });
    const production = await startTestApi(ns, { devnode: false });
    try {
      await production.deps.cache.until(ns.name, 'headless', (s) => s?.status?.phase === 'Running', 10_000);
      // Its target is the Service's ClusterIP, whatever the annotation says.
      expect(await production.deps.previews.base(ns.name, 'redirect', 8080)).toBe(`http://${clusterIp}:8080`);
      const url = await production.serve();
      const res = await fetch(`${url}${previewPath('headless', 8080)}/production?namespace=${ns.name}`, {
        headers: { 'x-api-key': production.keys.alice },
      });
      expect(res.status, await res.clone().text()).toBe(502);
      expect(seen).not.toContain('/production');
    } finally {
      await production.close();
    }
  });

  it('a preview WebSocket upgrade from another origin is 403; from the API’s own origin, or without one, it opens', async () => {
    await fakeRunning('origin', 8080);
    const ws = `${base.replace('http', 'ws')}${previewPath('origin', 8080)}/ws?namespace=${ns.name}`;
    const headers = { 'x-api-key': api.keys.alice };
    for (const origin of ['https://evil.example', 'null', `${base}.evil.example`]) {
      expect({ origin, ...(await handshake(new WebSocket(ws, { headers, origin }))) }).toEqual({
        origin,
        status: 403,
        body: { error: 'forbidden', message: 'a preview WebSocket is opened only from its own origin' },
      });
    }
    for (const origin of [base, undefined]) {
      const socket = new WebSocket(ws, { headers, ...(origin ? { origin } : {}) });
      await once(socket, 'open');
      socket.send(`from ${origin ?? 'no origin'}`);
      const [data] = (await once(socket, 'message')) as [Buffer];
      expect(data.toString()).toBe(`from ${origin ?? 'no origin'}`);
      socket.close();
    }
  });
});
