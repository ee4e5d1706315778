import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, request, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { GROUP, Labels, VERSION } from '../../core/index.ts';
import { createCertificateAuthority, type RunningSvc, startSvc } from '../../stack/index.ts';
import { kubeRequest, startTestApi, useNamespace, type TestApi } from '../support/index.ts';

// Issue 35, deliverable 2: the real gateway process (`svc egress`) on 127.0.0.1, knowing its
// sandboxes from the real apiserver: a Pod whose status.podIP is 127.0.0.1 (or .2) is the
// sandbox a connection from that address comes from.
const ns = useNamespace('eggw');
let api: TestApi;
let gateway: RunningSvc | undefined;
let gatewayPort = 0;
let dir = '';
let ca = '';
const upstreams: Server[] = [];
let httpPort = 0;
let tlsPort = 0;
const templates = { a: 'egg-a', b: 'egg-b' };

const base = `/apis/${GROUP}/${VERSION}`;
const post = async (path: string, body: object) => {
  const res = await kubeRequest(ns.kc, { method: 'POST', path, body });
  expect(res.status, res.body).toBe(201);
  return res.json<{ metadata: { uid: string } }>();
};

async function template(name: string, allowedHosts: string[]): Promise<void> {
  await kubeRequest(ns.kc, { method: 'DELETE', path: `${base}/clustersandboxtemplates/${name}` });
  await post(`${base}/clustersandboxtemplates`, {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'ClusterSandboxTemplate',
    metadata: { name },
    spec: { image: 'docker.io/library/debian:bookworm', network: { egress: 'allowlist', allowedHosts } },
  });
}

/** A Sandbox, and a Pod of it that no node runs, with `ip` as its address. */
async function sandboxAt(name: string, templateName: string, ip: string): Promise<void> {
  await post(`${base}/namespaces/${ns.name}/sandboxes`, {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Sandbox',
    metadata: { name },
    spec: { templateRef: { name: templateName }, createdBy: 'alice' },
  });
  await post(`/api/v1/namespaces/${ns.name}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${name}-pod`, labels: { [Labels.sandbox]: name } },
    spec: { nodeName: 'egress-test-nowhere', containers: [{ name: 'c', image: 'x' }] },
  });
  const res = await kubeRequest(ns.kc, {
    method: 'PATCH',
    path: `/api/v1/namespaces/${ns.name}/pods/${name}-pod/status`,
    headers: { 'content-type': 'application/merge-patch+json' },
    body: { status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] } },
  });
  expect(res.status, res.body).toBe(200);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-egress-'));
  const authority = await createCertificateAuthority(dir);
  ca = authority.pem;
  const cert = await authority.issue('upstream', ['localhost']);
  const http = createHttpServer((_, res) => res.end('hello over http\n'));
  const https = createHttpsServer({ cert: cert.certPem, key: cert.keyPem }, (_, res) =>
    res.end('hello over tls\n'),
  );
  for (const server of [http, https]) {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    upstreams.push(server);
  }
  httpPort = (http.address() as AddressInfo).port;
  tlsPort = (https.address() as AddressInfo).port;
  api = await startTestApi(ns);
  await template(templates.a, ['localhost']);
  await template(templates.b, ['other.example']);
  await sandboxAt('a', templates.a, '127.0.0.1');
  await sandboxAt('b', templates.b, '127.0.0.2');
  gateway = await startSvc(
    [
      'egress',
      ...['--listen', '127.0.0.1:0', '--kubeconfig', inject('kubeconfigPath'), '--log-level', 'info'],
    ],
    { logPath: join(dir, 'egress.log'), startTimeoutMs: 120_000 },
  );
  gatewayPort = gateway.port;
}, 240_000);

afterAll(async () => {
  await gateway?.close();
  for (const server of upstreams) server.close();
  await api?.close();
  for (const name of Object.values(templates))
    await kubeRequest(ns.kc, { method: 'DELETE', path: `${base}/clustersandboxtemplates/${name}` });
  await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: string;
}

/** A plain HTTP request through the gateway (absolute form), from `from`. */
function viaProxy(url: string, from = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: gatewayPort, localAddress: from, path: url }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** `CONNECT authority` from `from`: the gateway's answer, and the tunnel when it opened one. */
function connectTo(authority: string, from = '127.0.0.1'): Promise<Answer & { socket?: Socket }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port: gatewayPort,
      localAddress: from,
      method: 'CONNECT',
      path: authority,
    });
    req.on('connect', (res, socket: Socket, head: Buffer) => {
      if (res.statusCode === 200) {
        resolve({ status: 200, body: '', socket });
        return;
      }
      // What came with the status line is in `head`; the rest follows on the socket.
      let body = head.toString('utf8');
      socket.setEncoding('utf8');
      socket.on('data', (c: string) => (body += c));
      socket.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A TLS GET over `socket` with `servername`; resolves with the response's body, rejects when the tunnel closes first. */
function tlsGet(socket: Socket, servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const tls = tlsConnect({ socket, servername, ca }, () => {
      tls.write(`GET / HTTP/1.1\r\nHost: ${servername}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    tls.setEncoding('utf8');
    tls.on('data', (c: string) => (text += c));
    tls.on('end', () => resolve(text.slice(text.indexOf('\r\n\r\n') + 4)));
    tls.on('error', reject);
  });
}

interface EventItem {
  reason: string;
  type: string;
  message: string;
  count: number;
  involvedObject: { name: string; uid: string };
  metadata: { annotations: Record<string, string> };
}

async function eventsOf(sandbox: string): Promise<EventItem[]> {
  const res = await kubeRequest(ns.kc, {
    method: 'GET',
    path: `/api/v1/namespaces/${ns.name}/events?fieldSelector=involvedObject.name=${sandbox}`,
  });
  return res.json<{ items: EventItem[] }>().items;
}

describe('svc egress, the real process', () => {
  it('lets a sandbox reach its hosts over HTTP and TLS, refuses the rest, and audits each decision', async () => {
    expect(await viaProxy(`http://localhost:${httpPort}/some/path?q=1`)).toEqual({
      status: 200,
      body: 'hello over http\n',
    });
    const tunnel = await connectTo(`localhost:${tlsPort}`);
    expect(tunnel.status).toBe(200);
    expect(await tlsGet(tunnel.socket!, 'localhost')).toBe('hello over tls\n');

    // A host not on the list: 403 and the reason, one line.
    expect(await connectTo('evil.example:443')).toEqual({
      status: 403,
      body: 'svc egress: evil.example is not allowed for sandbox a\n',
    });
    expect(await viaProxy('http://evil.example/')).toEqual({
      status: 403,
      body: 'svc egress: evil.example is not allowed for sandbox a\n',
    });
    // An allowed tunnel carrying a handshake for another name: closed before a byte goes on.
    const fronted = await connectTo(`localhost:${tlsPort}`);
    expect(fronted.status).toBe(200);
    // The handshake never completes: the tunnel ends (or resets) with no answer from the host.
    expect(await tlsGet(fronted.socket!, 'evil.example').catch(() => '')).toBe('');
    // Sandbox b (127.0.0.2) cannot use a's list; an address that is no sandbox gets nothing.
    expect(await viaProxy(`http://localhost:${httpPort}/`, '127.0.0.2')).toEqual({
      status: 403,
      body: 'svc egress: localhost is not allowed for sandbox b\n',
    });
    expect(await connectTo(`localhost:${tlsPort}`, '127.0.0.3')).toEqual({
      status: 403,
      body: 'svc egress: localhost is not allowed for 127.0.0.3: no sandbox has that address\n',
    });

    const n = String.raw`\d+`;
    const line = (host: string, verdict: string, tail = '') =>
      new RegExp(
        `^${host.replace(/\./g, '\\.')} ${verdict}: 1 connection, ${n} bytes out, ${n} bytes in, ${n} ms${tail}$`,
      );
    await expect.poll(async () => (await eventsOf('a')).length, { timeout: 10_000 }).toBe(5);
    const a = await eventsOf('a');
    const byMessage = (re: RegExp) => a.find((e) => re.test(e.message));
    const httpOk = byMessage(line(`localhost:${httpPort}`, 'allowed'));
    const tlsOk = byMessage(line(`localhost:${tlsPort}`, 'allowed'));
    expect(httpOk).toMatchObject({ reason: 'EgressAllowed', type: 'Normal', count: 1 });
    expect(tlsOk).toMatchObject({ reason: 'EgressAllowed', type: 'Normal', count: 1 });
    // Bytes both ways were counted; the path and headers are nowhere in the record.
    expect(httpOk!.message).not.toMatch(/ 0 bytes/);
    expect(tlsOk!.message).not.toMatch(/ 0 bytes/);
    expect(JSON.stringify(a)).not.toContain('some/path');
    for (const port of [443, 80])
      expect(
        byMessage(
          new RegExp(
            `^evil\\.example:${port} denied: 1 connection, 0 bytes out, 0 bytes in, \\d+ ms; svc egress: evil\\.example is not allowed for sandbox a$`,
          ),
        ),
      ).toMatchObject({ reason: 'EgressDenied', type: 'Warning' });
    expect(
      byMessage(
        line(
          `localhost:${tlsPort}`,
          'denied',
          '; svc egress: TLS server name evil.example is not localhost, the host the tunnel was opened to, for sandbox a',
        ),
      ),
    ).toMatchObject({ reason: 'EgressDenied', type: 'Warning' });
    expect(a.map((e) => e.metadata.annotations)).toEqual(
      a.map(() => ({ 'svc.io/actor': 'svc-egress', 'svc.io/owner': 'alice' })),
    );
    const b = await eventsOf('b');
    expect(b.map((e) => [e.reason, e.message.replace(/\d+ ms/, 'N ms')])).toEqual([
      [
        'EgressDenied',
        `localhost:${httpPort} denied: 1 connection, 0 bytes out, 0 bytes in, N ms; svc egress: localhost is not allowed for sandbox b`,
      ],
    ]);

    // GET /audit/events?category=egress shows these records, and only these.
    const listed = await api.call('GET', `/audit/events?namespace=${ns.name}&sandbox=a&category=egress`, {
      key: api.keys.admin,
    });
    expect(listed.status).toBe(200);
    const items = ((await listed.json()) as { items: { reason: string; actor: string }[] }).items;
    expect(items).toHaveLength(5);
    expect(new Set(items.map((i) => i.actor))).toEqual(new Set(['svc-egress']));
  });
});
