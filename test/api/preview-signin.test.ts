// The preview's sign-in for browsers (api/preview/signin.ts) on the real control plane: a
// one-use ticket from POST …/ports/{port}/preview-ticket is exchanged on the preview path
// for a cookie of that port's path alone; the cookie is then the caller for that port's
// preview (pages, methods, WebSocket upgrades) and for nothing else.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { PREVIEW_SESSION_TTL_MS, PREVIEW_TICKET_TTL_MS } from '../../api/index.ts';
import { SandboxdKeySecret } from '../../kube/index.ts';
import { kubeRequest, startTestApi, useNamespace, type TestApi } from '../support/index.ts';

const ns = useNamespace('api-preview-signin');
let api: TestApi;
let base: string;
let upstream: Server;
const seen: { url: string; cookie?: string }[] = [];

/** The app behind every forwarded port here: a page, an echo of the request, a WebSocket echo. */
async function startUpstream(): Promise<Server> {
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', cookie: req.headers.cookie });
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<h1>served from the sandbox</h1>');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ method: req.method, url: req.url }));
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket) => socket.on('message', (data, binary) => socket.send(data, { binary })));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

beforeAll(async () => {
  upstream = await startUpstream();
  // Tickets are signed with the installation's sandboxd key, which the operator makes.
  await new SandboxdKeySecret({ kc: ns.kc, namespace: ns.name }).ensure();
  api = await startTestApi(ns);
  base = await api.serve();
  const address = `127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  for (const [name, ports] of [
    ['web', [8080, 8081]],
    ['web2', [8080]],
  ] as const) {
    const made = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: { name, templateRef: { name: 'default' }, ports: ports.map((port) => ({ port })) },
    });
    expect(made.status).toBe(201);
    const res = await kubeRequest(ns.kc, {
      method: 'PATCH',
      path: `/apis/svc.io/v1alpha1/namespaces/${ns.name}/sandboxes/${name}/status`,
      headers: { 'content-type': 'application/merge-patch+json' },
      body: {
        status: {
          phase: 'Running',
          forwardedPorts: ports.map((port) => ({ port, protocol: 'http', internalUrl: 'x' })),
        },
      },
    });
    expect(res.status).toBe(200);
    for (const port of ports)
      await ns.core.createNamespacedService({
        namespace: ns.name,
        body: {
          metadata: {
            name: `pf-${name}-${port}`,
            annotations: { 'devnode.svc.io/host-address': `${port}=${address}` },
          },
          spec: { ports: [{ port }], selector: { 'svc.io/sandbox': name } },
        },
      });
    await api.deps.cache.until(ns.name, name, (s) => s?.status?.phase === 'Running', 10_000);
  }
});
afterAll(async () => {
  await api?.close();
  upstream?.close();
});

const previewPath = (sandbox: string, port: number) => `/api/v1/sandboxes/${sandbox}/preview/${port}`;

/** A ticket of `key`'s caller for the port: the URL to open, relative to the API's host. */
async function ticket(sandbox: string, port: number, key = api.keys.alice): Promise<string> {
  const res = await api.call('POST', `/sandboxes/${sandbox}/ports/${port}/preview-ticket`, { key });
  expect(res.status).toBe(200);
  return ((await res.json()) as { url: string }).url;
}

/** Opens a ticket URL as a browser's first request would: no credential, no redirect followed. */
const open = (url: string) => fetch(`${base}${url}`, { redirect: 'manual' });

/** The cookie a ticket is exchanged for (its value), after checking the 303. */
async function signIn(sandbox: string, port: number, key = api.keys.alice): Promise<string> {
  const res = await open(await ticket(sandbox, port, key));
  expect(res.status).toBe(303);
  return /^svc_preview=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!;
}

const withCookie = (path: string, cookie: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, {
    ...init,
    redirect: 'manual',
    headers: { ...(init.headers as Record<string, string>), cookie: `svc_preview=${cookie}` },
  });

async function refusal(res: Response): Promise<{ status: number; body: unknown }> {
  return { status: res.status, body: await res.json() };
}

describe('preview sign-in', () => {
  it('a ticket is exchanged for a cookie of that port’s path (303 without the ticket); the cookie opens the page', async () => {
    const before = Date.now();
    const issued = await api.call('POST', '/sandboxes/web/ports/8080/preview-ticket', {
      key: api.keys.alice,
    });
    expect(issued.status).toBe(200);
    expect(issued.headers.get('cache-control')).toBe('no-store');
    const { url, expiresAt } = (await issued.json()) as { url: string; expiresAt: string };
    const [path, query] = url.split('?');
    expect(path).toBe(`${previewPath('web', 8080)}/`);
    const params = new URLSearchParams(query);
    expect([...params.keys()]).toEqual(['namespace', 'ticket']);
    expect(params.get('namespace')).toBe(ns.name);
    const ttl = Date.parse(expiresAt) - before;
    expect(ttl).toBeGreaterThan(PREVIEW_TICKET_TTL_MS - 5_000);
    expect(ttl).toBeLessThanOrEqual(PREVIEW_TICKET_TTL_MS + 1_000);

    const res = await open(url);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${previewPath('web', 8080)}/?namespace=${ns.name}`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const setCookie = res.headers.getSetCookie();
    expect(setCookie).toHaveLength(1);
    const [pair, ...attributes] = setCookie[0]!.split(/;\s*/);
    expect(pair).toMatch(/^svc_preview=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(attributes.sort()).toEqual(
      [
        `Max-Age=${PREVIEW_SESSION_TTL_MS / 1000}`,
        `Path=${previewPath('web', 8080)}`,
        'HttpOnly',
        'SameSite=Lax',
      ].sort(),
    );
    const cookie = pair!.slice('svc_preview='.length);

    const page = await withCookie(res.headers.get('location')!, cookie);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<h1>served from the sandbox</h1>');
    expect(page.headers.get('content-security-policy')).toMatch(/^sandbox /);
    // The cookie is ours: the app never sees it.
    expect(seen.at(-1)).toEqual({ url: '/', cookie: undefined });

    // Every method and path under the port, and the page's WebSocket.
    const post = await withCookie(`${previewPath('web', 8080)}/form?x=1`, cookie, {
      method: 'POST',
      body: 'b',
    });
    expect(post.status).toBe(200);
    expect(await post.json()).toEqual({ method: 'POST', url: '/form?x=1' });
    const socket = new WebSocket(`${base.replace('http', 'ws')}${previewPath('web', 8080)}/ws`, {
      headers: { cookie: `svc_preview=${cookie}` },
    });
    await once(socket, 'open');
    socket.send('over the cookie');
    const [data] = (await once(socket, 'message')) as [Buffer];
    expect(data.toString()).toBe('over the cookie');
    socket.close();
  });

  it('a ticket is used once; a late ticket and a late cookie are refused', async () => {
    const url = await ticket('web', 8080);
    expect((await open(url)).status).toBe(303);
    expect(await refusal(await open(url))).toEqual({
      status: 401,
      body: { error: 'invalid_ticket', message: 'the ticket was used already' },
    });

    const late = await ticket('web', 8080);
    const cookie = await signIn('web', 8080);
    const clock = api.deps.clock;
    try {
      api.deps.clock = () => new Date(Date.now() + PREVIEW_TICKET_TTL_MS + 1);
      expect(await refusal(await open(late))).toEqual({
        status: 401,
        body: { error: 'invalid_ticket', message: 'the ticket has expired' },
      });
      expect((await withCookie(`${previewPath('web', 8080)}/`, cookie)).status).toBe(200);
      api.deps.clock = () => new Date(Date.now() + PREVIEW_SESSION_TTL_MS + 1);
      expect(await refusal(await withCookie(`${previewPath('web', 8080)}/`, cookie))).toEqual({
        status: 401,
        body: { error: 'invalid_ticket', message: 'the ticket has expired' },
      });
    } finally {
      api.deps.clock = clock;
    }
  });

  it('a ticket or cookie of one port is refused on another port and another sandbox', async () => {
    const url = await ticket('web', 8080);
    const query = url.slice(url.indexOf('?'));
    expect(await refusal(await open(`${previewPath('web', 8081)}/${query}`))).toEqual({
      status: 401,
      body: { error: 'invalid_ticket', message: 'the ticket was issued for another port' },
    });
    expect(await refusal(await open(`${previewPath('web2', 8080)}/${query}`))).toEqual({
      status: 401,
      body: { error: 'invalid_ticket', message: 'the ticket was issued for another sandbox' },
    });
    // Neither spent it.
    expect((await open(url)).status).toBe(303);

    const cookie = await signIn('web', 8080);
    expect(await refusal(await withCookie(`${previewPath('web', 8081)}/`, cookie))).toEqual({
      status: 401,
      body: { error: 'invalid_ticket', message: 'the ticket was issued for another port' },
    });
    expect(await refusal(await withCookie(`${previewPath('web2', 8080)}/`, cookie))).toEqual({
      status: 401,
      body: { error: 'invalid_ticket', message: 'the ticket was issued for another sandbox' },
    });
    // A ticket is no cookie, and a cookie no ticket: each purpose signs with its own key.
    const asCookie = new URLSearchParams(query).get('ticket')!;
    expect(await refusal(await withCookie(`${previewPath('web', 8080)}/`, asCookie))).toEqual({
      status: 401,
      body: { error: 'invalid_ticket', message: 'the ticket is not valid' },
    });
    expect(
      await refusal(await open(`${previewPath('web', 8080)}/?ticket=${encodeURIComponent(cookie)}`)),
    ).toEqual({ status: 401, body: { error: 'invalid_ticket', message: 'the ticket is not valid' } });
  });

  it('the cookie authenticates nothing but the preview: the API refuses it', async () => {
    const cookie = await signIn('web', 8080);
    for (const path of [
      '/api/v1/sandboxes',
      '/api/v1/sandboxes/web',
      '/api/v1/sandboxes/web/ports/8080/preview-ticket',
    ]) {
      const res = await withCookie(path, cookie, path.endsWith('ticket') ? { method: 'POST' } : {});
      expect({ path, ...(await refusal(res)) }).toMatchObject({
        path,
        status: 401,
        body: { error: 'unauthenticated' },
      });
    }
    // A WebSocket upgrade elsewhere (the terminal) does not take it either.
    const socket = new WebSocket(`${base.replace('http', 'ws')}/api/v1/sandboxes/web/terminal`, {
      headers: { cookie: `svc_preview=${cookie}` },
    });
    const [, res] = (await once(socket, 'unexpected-response')) as [unknown, IncomingMessage];
    expect(res.statusCode).toBe(401);
    res.destroy();
  });

  it('owner-or-admin: bob gets no ticket for alice’s sandbox, and his key beats her cookie; an admin gets one', async () => {
    expect(
      await refusal(
        await api.call('POST', '/sandboxes/web/ports/8080/preview-ticket', { key: api.keys.bob }),
      ),
    ).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    const cookie = await signIn('web', 8080);
    const res = await withCookie(`${previewPath('web', 8080)}/`, cookie, {
      headers: { 'x-api-key': api.keys.bob },
    });
    expect(res.status).toBe(403);
    const admin = await signIn('web', 8080, api.keys.admin);
    expect((await withCookie(`${previewPath('web', 8080)}/`, admin)).status).toBe(200);
  });

  it('refuses a ticket for a port not forwarded (404), sandboxd’s port (400) and a bad port (400)', async () => {
    expect(
      await refusal(
        await api.call('POST', '/sandboxes/web/ports/9090/preview-ticket', { key: api.keys.alice }),
      ),
    ).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const control = await api.call('POST', '/sandboxes/web/ports/9000/preview-ticket', {
      key: api.keys.alice,
    });
    expect(control.status).toBe(400);
    const bad = await api.call('POST', '/sandboxes/web/ports/http/preview-ticket', { key: api.keys.alice });
    expect(await refusal(bad)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(
      (await fetch(`${base}/api/v1/sandboxes/web/ports/8080/preview-ticket`, { method: 'POST' })).status,
    ).toBe(401);
  });
});
