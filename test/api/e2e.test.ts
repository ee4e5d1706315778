// The API on the whole stack: devnode runs the sandboxes, the operator reconciles them.
// Ports reach a real server inside a sandbox through the preview proxy; a clone carries
// the source's files byte for byte.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import type { CloneResponse, Sandbox } from '../../core/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  shIn,
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('api-e2e');
useDevnode(ns);
const BIG = 50 * 1024 * 1024;
let api: TestApi;
let base: string;

// The sandbox's own program: an HTTP server on 8080 with a 50 MiB body, an echo and a
// WebSocket echo. A sandbox sees the host's tools (its Node) but not this checkout, which
// may sit under /tmp (private in a sandbox): the test writes the script and a copy of the
// `ws` package into the workspace, and the template's command waits for them.
const root = join(import.meta.dirname, '..', '..');
const SERVER = `
const { createServer } = require('node:http');
const { WebSocketServer } = require('./ws');
const chunk = Buffer.alloc(1024 * 1024);
for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31) % 251;
const server = createServer((req, res) => {
  if (req.url === '/big') {
    res.writeHead(200, { 'content-length': String(${BIG}) });
    let sent = 0;
    const pump = () => {
      while (sent < ${BIG}) { sent += chunk.length; if (!res.write(chunk)) return void res.once('drain', pump); }
      res.end();
    };
    return pump();
  }
  const parts = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', () => res.end(JSON.stringify({ method: req.method, url: req.url, body: Buffer.concat(parts).toString(), headers: req.headers })));
});
new WebSocketServer({ server }).on('connection', (s) => s.on('message', (d, binary) => s.send(d, { binary })));
server.listen(8080, '127.0.0.1');
`;
const template = useClusterTemplate('e2e', ns, {
  command: [
    'sh',
    '-c',
    'while [ ! -f /workspace/server.js ]; do sleep 0.1; done; exec node /workspace/server.js',
  ],
});

/** The server and its one dependency, written into the sandbox's workspace. */
async function installServer(sandbox: string): Promise<void> {
  const files: { path: string; content: Buffer }[] = [];
  const ws = join(root, 'node_modules/ws');
  for (const entry of await readdir(ws, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(js|mjs|json)$/.test(entry.name)) continue;
    const from = join(entry.parentPath, entry.name);
    files.push({ path: join('/workspace/ws', relative(ws, from)), content: await readFile(from) });
  }
  const sandboxd = await api.deps.sandboxd.client(ns.name, sandbox);
  expect((await sandboxd.writeFiles(files)).status).toBe(200);
  // Last, so the waiting command never starts on a half-written dependency.
  expect(
    (await sandboxd.writeFiles([{ path: '/workspace/server.js', content: Buffer.from(SERVER) }])).status,
  ).toBe(200);
}

useOperator(ns, {
  identity: 'api-e2e',
  logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }),
  settings: { snapshotWaitSeconds: 60 },
});

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: 60_000 });
  base = await api.serve();
}, 60_000);
afterAll(() => api?.close(), 30_000);

async function running(name: string): Promise<Sandbox> {
  let s: Sandbox | undefined;
  await eventually(
    async () => {
      const res = await api.call('GET', `/sandboxes/${name}`, { key: api.keys.alice });
      s = (await res.json()) as Sandbox;
      return s.status?.phase === 'Running';
    },
    { timeoutMs: 90_000, describe: () => `${name} Running: ${JSON.stringify(s?.status)}` },
  );
  return s!;
}

/** Runs a shell command in a sandbox through its sandboxd (as the API reaches it). */
const sh = async (name: string, script: string) =>
  shIn(await api.deps.sandboxd.client(ns.name, name), script);

const preview = (sandbox: string, rest: string) =>
  `${base}/api/v1/sandboxes/${sandbox}/preview/8080${rest}${rest.includes('?') ? '&' : '?'}namespace=${ns.name}`;

describe('API on the whole stack', () => {
  test('ports: a server inside the sandbox answers through the preview; DELETE makes it 404', async () => {
    const made = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: { name: 'web', templateRef: { name: template } },
    });
    expect(made.status).toBe(201);
    await running('web');
    await installServer('web');

    const forwarded = await api.call('POST', '/sandboxes/web/ports', {
      key: api.keys.alice,
      body: { port: 8080 },
    });
    expect(forwarded.status).toBe(201);
    expect(await forwarded.json()).toEqual({
      port: 8080,
      protocol: 'http',
      internalUrl: `http://pf-web-8080.${ns.name}.svc.cluster.local:8080`,
    });

    // The server starts with the sandbox; wait until the proxy reaches it.
    await eventually(
      async () => (await fetch(preview('web', '/ready'), { headers: { 'x-api-key': api.keys.alice } })).ok,
      { timeoutMs: 30_000, describe: () => 'the server inside the sandbox to answer' },
    );

    const big = await fetch(preview('web', '/big'), { headers: { 'x-api-key': api.keys.alice } });
    expect(big.status).toBe(200);
    const hash = createHash('sha256');
    let size = 0;
    for await (const c of big.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(c);
      size += c.length;
    }
    const chunk = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31) % 251;
    const want = createHash('sha256');
    for (let i = 0; i < BIG / chunk.length; i++) want.update(chunk);
    expect(size).toBe(BIG);
    expect(hash.digest('hex')).toBe(want.digest('hex'));

    const post = await fetch(preview('web', '/echo?x=1'), {
      method: 'POST',
      headers: { 'x-api-key': api.keys.alice },
      body: 'hello from outside',
    });
    const echoed = (await post.json()) as { method: string; url: string; body: string; headers: object };
    expect(echoed).toMatchObject({ method: 'POST', body: 'hello from outside' });
    expect(echoed.url).toMatch(/^\/echo\?x=1/);
    expect(echoed.headers).not.toHaveProperty('x-api-key');

    const socket = new WebSocket(preview('web', '/ws').replace('http', 'ws'), {
      headers: { 'x-api-key': api.keys.alice },
    });
    await once(socket, 'open');
    socket.send('ping through the sandbox');
    const [data] = (await once(socket, 'message')) as [Buffer];
    expect(data.toString()).toBe('ping through the sandbox');
    socket.close();

    const bob = await fetch(preview('web', '/echo'), { headers: { 'x-api-key': api.keys.bob } });
    expect(bob.status).toBe(403);
    const bobSocket = new WebSocket(preview('web', '/ws').replace('http', 'ws'), {
      headers: { 'x-api-key': api.keys.bob },
    });
    const [, refused] = (await once(bobSocket, 'unexpected-response')) as [unknown, IncomingMessage];
    expect(refused.statusCode).toBe(403);
    refused.destroy();

    const removed = await api.call('DELETE', '/sandboxes/web/ports/8080', { key: api.keys.alice });
    expect(removed.status).toBe(204);
    const after = await fetch(preview('web', '/echo'), { headers: { 'x-api-key': api.keys.alice } });
    expect(after.status).toBe(404);
  }, 180_000);

  test('clone: 202 as the spec shows, and the clone runs with byte-identical files', async () => {
    const made = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: { name: 'src', templateRef: { name: template } },
    });
    expect(made.status).toBe(201);
    await running('src');
    await sh(
      'src',
      'mkdir -p /workspace/tree && for i in $(seq 1 200); do head -c 2048 /dev/urandom > /workspace/tree/f$i; done; head -c 8388608 /dev/urandom > /workspace/blob',
    );
    const sums = 'cd /workspace && find tree blob -type f | sort | xargs sha256sum';
    const before = await sh('src', sums);
    expect(before.split('\n').filter(Boolean)).toHaveLength(201);

    const res = await api.call('POST', '/sandboxes/src/clone', { key: api.keys.bob, body: {} });
    expect(res.status).toBe(403);
    const accepted = await api.call('POST', '/sandboxes/src/clone', {
      key: api.keys.alice,
      body: { name: 'copy' },
    });
    expect(accepted.status).toBe(202);
    const body = (await accepted.json()) as CloneResponse;
    expect(body).toMatchObject({
      name: 'copy',
      namespace: ns.name,
      clonedFrom: 'src',
      phase: 'Pending',
      message: 'clone accepted; poll GET /api/v1/sandboxes/copy until status.phase is Running',
    });
    expect(body.snapshot).toMatch(/^src-snap-\d+$/);

    const copy = await running('copy');
    expect(copy.spec.createdBy).toBe('alice');
    expect(copy.status?.clonedFrom).toBe('src');
    expect(await sh('copy', sums)).toBe(before);
  }, 180_000);
});
