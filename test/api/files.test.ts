// The file API on the whole stack: devnode runs a code sandbox, the operator reconciles it,
// sandboxd does the work. Listing, Range, mkdir/move/delete, every escape refused with
// nothing written, bob and a stopped sandbox refused, and a 1 GiB round trip through a real
// `svc api` process with the memory of it and of sandboxd measured.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { Annotations, type Sandbox } from '../../core/index.ts';
import type { SandboxdClient } from '../../kube/index.ts';
import { ForbiddenError, NotFoundError, SvcClient } from '../../clients/typescript/index.ts';
import { eventually, type RunningSvc } from '../../stack/index.ts';
import {
  hashedDownload,
  patternStream,
  peakGrowth,
  rawRequest,
  shIn,
  startApiProcess,
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  waitForSandboxPhase,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('files');
useDevnode(ns);
const template = useClusterTemplate('files', ns, {});
useOperator(ns, { identity: 'files-test', logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }) });
const GiB = 1024 * 1024 * 1024;
let api: TestApi;
let base: string;
let sandboxd: SandboxdClient;

const filesUrl = (sandbox: string, rest: string, query = '') =>
  `/api/v1/sandboxes/${sandbox}/files/${rest}?namespace=${ns.name}${query}`;

async function create(name: string, mode: 'code' | 'agent' = 'code'): Promise<void> {
  const made = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name, mode, templateRef: { name: template } },
  });
  expect(made.status, await made.clone().text()).toBe(201);
}

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: 60_000 });
  base = await api.serve();
  await create('code');
  await create('agent', 'agent');
  await create('stopped');
  await Promise.all(['code', 'agent', 'stopped'].map((n) => waitForSandboxPhase(ns, n, 'Running')));
  const stop = await api.call('POST', '/sandboxes/stopped/stop', { key: api.keys.alice });
  expect(stop.status).toBeLessThan(300);
  await waitForSandboxPhase(ns, 'stopped', 'Stopped');
  sandboxd = await api.deps.sandboxd.client(ns.name, 'code');
}, 240_000);

afterAll(async () => {
  await api?.close();
}, 30_000);

const alice = { 'x-api-key': '' };
beforeAll(() => {
  alice['x-api-key'] = api.keys.alice;
});

describe('files', () => {
  test('write, list, read with Range and conditions, replace, mkdir, move and delete', async () => {
    const body = Buffer.from('print("hello")\n');
    const put = await rawRequest(base, 'PUT', filesUrl('code', 'workspace/app/x.py', '&mode=0755'), {
      headers: alice,
      body,
    });
    expect(put.status, put.body.toString()).toBe(201);
    const sha = createHash('sha256').update(body).digest('hex');
    expect(JSON.parse(put.body.toString())).toEqual({
      path: '/workspace/app/x.py',
      size: body.length,
      sha256: sha,
    });
    expect(await shIn(sandboxd, 'stat -c %a /workspace/app/x.py')).toBe('755\n');

    const again = await rawRequest(base, 'PUT', filesUrl('code', 'workspace/app/x.py'), {
      headers: alice,
      body: Buffer.from('0123456789'),
    });
    expect(again.status).toBe(200);
    expect(JSON.parse(again.body.toString())).toMatchObject({ size: 10 });
    // A replaced file keeps its mode unless one is given.
    expect(await shIn(sandboxd, 'stat -c %a /workspace/app/x.py')).toBe('755\n');

    const read = await rawRequest(base, 'GET', filesUrl('code', 'workspace/app/x.py'), { headers: alice });
    expect(read.status).toBe(200);
    expect(read.body.toString()).toBe('0123456789');
    expect(read.headers['content-type']).toBe('application/octet-stream');
    expect(read.headers['content-length']).toBe('10');
    expect(read.headers.etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(Date.parse(read.headers['last-modified']!)).toBeGreaterThan(0);

    const range = await rawRequest(base, 'GET', filesUrl('code', 'workspace/app/x.py'), {
      headers: { ...alice, range: 'bytes=2-5' },
    });
    expect(range.status).toBe(206);
    expect(range.body.toString()).toBe('2345');
    expect(range.headers['content-range']).toBe('bytes 2-5/10');
    const tail = await rawRequest(base, 'GET', filesUrl('code', 'workspace/app/x.py'), {
      headers: { ...alice, range: 'bytes=-3' },
    });
    expect([tail.status, tail.body.toString()]).toEqual([206, '789']);
    const unsatisfiable = await rawRequest(base, 'GET', filesUrl('code', 'workspace/app/x.py'), {
      headers: { ...alice, range: 'bytes=50-60' },
    });
    expect(unsatisfiable.status).toBe(416);
    const unchanged = await rawRequest(base, 'GET', filesUrl('code', 'workspace/app/x.py'), {
      headers: { ...alice, 'if-none-match': read.headers.etag! },
    });
    expect(unchanged.status).toBe(304);

    const list = await api.call('GET', '/sandboxes/code/files/?path=/workspace/app', { key: api.keys.alice });
    expect(list.status).toBe(200);
    const listing = (await list.json()) as { path: string; entries: Record<string, unknown>[] };
    expect(listing.path).toBe('/workspace/app');
    expect(listing.entries).toEqual([
      {
        name: 'x.py',
        path: '/workspace/app/x.py',
        size: 10,
        isDir: false,
        type: 'file',
        mode: '-rwxr-xr-x',
        modifiedAt: expect.any(Number) as number,
      },
    ]);
    const seconds = listing.entries[0]!.modifiedAt as number;
    expect(Math.abs(seconds - Date.now() / 1000)).toBeLessThan(600);
    // The folder through the path form gives the same listing.
    const folder = await rawRequest(base, 'GET', filesUrl('code', 'workspace/app'), { headers: alice });
    expect(JSON.parse(folder.body.toString())).toEqual(listing);

    const mkdir = await api.call('POST', '/sandboxes/code/files/workspace/data/raw', {
      key: api.keys.alice,
      body: { op: 'mkdir' },
    });
    expect([mkdir.status, await mkdir.json()]).toEqual([201, { path: '/workspace/data/raw' }]);
    const again2 = await api.call('POST', '/sandboxes/code/files/workspace/data/raw', {
      key: api.keys.alice,
      body: { op: 'mkdir' },
    });
    expect(again2.status).toBe(200);
    const move = await api.call('POST', '/sandboxes/code/files/workspace/app/x.py', {
      key: api.keys.alice,
      body: { op: 'move', to: '/workspace/data/raw/y.py' },
    });
    expect([move.status, await move.json()]).toEqual([200, { path: '/workspace/data/raw/y.py' }]);
    expect(
      await shIn(sandboxd, 'cat /workspace/data/raw/y.py; test -e /workspace/app/x.py || echo gone'),
    ).toBe('0123456789gone\n');
    const moveOut = await api.call('POST', '/sandboxes/code/files/workspace/data/raw/y.py', {
      key: api.keys.alice,
      body: { op: 'move', to: '/tmp/y.py' },
    });
    expect([moveOut.status, ((await moveOut.json()) as { error: string }).error]).toEqual([
      400,
      'path_outside_workspace',
    ]);
    const badOp = await api.call('POST', '/sandboxes/code/files/workspace/data', {
      key: api.keys.alice,
      body: { op: 'chmod' },
    });
    expect(badOp.status).toBe(400);

    const notEmpty = await api.call('DELETE', '/sandboxes/code/files/workspace/data', {
      key: api.keys.alice,
    });
    expect([notEmpty.status, ((await notEmpty.json()) as { error: string }).error]).toEqual([
      409,
      'directory_not_empty',
    ]);
    const del = await api.call('DELETE', '/sandboxes/code/files/workspace/data?recursive=true', {
      key: api.keys.alice,
    });
    expect(del.status).toBe(204);
    const missing = await api.call('GET', '/sandboxes/code/files/?path=/workspace/data', {
      key: api.keys.alice,
    });
    expect([missing.status, ((await missing.json()) as { error: string }).error]).toEqual([404, 'not_found']);
    const missingFile = await api.call('GET', '/sandboxes/code/files/workspace/nope.txt', {
      key: api.keys.alice,
    });
    expect(missingFile.status).toBe(404);
    const delMissing = await api.call('DELETE', '/sandboxes/code/files/workspace/nope.txt', {
      key: api.keys.alice,
    });
    expect(delMissing.status).toBe(404);
  });

  test("a listing's modes are `ls -l`'s strings: setuid file, folder, link, sticky folder", async () => {
    await shIn(
      sandboxd,
      'mkdir -p /workspace/modes/dir /workspace/modes/tmp && cd /workspace/modes && ' +
        ': > suid && chmod 4755 suid && : > plain && chmod 0640 plain && chmod 0755 dir && ' +
        'chmod 1777 tmp && ln -s plain link',
    );
    const list = await api.call('GET', '/sandboxes/code/files/?path=/workspace/modes', {
      key: api.keys.alice,
    });
    expect(list.status).toBe(200);
    const { entries } = (await list.json()) as { entries: { name: string; type: string; mode: string }[] };
    expect(entries.map((e) => [e.name, e.type, e.mode])).toEqual([
      ['dir', 'dir', 'drwxr-xr-x'],
      ['link', 'symlink', 'lrwxrwxrwx'],
      ['plain', 'file', '-rw-r-----'],
      ['suid', 'file', '-rwsr-xr-x'],
      ['tmp', 'dir', 'drwxrwxrwt'],
    ]);
    // The same strings as the sandbox's own `ls -l` (coreutils' stat %A is its mode column).
    const ls = await shIn(
      sandboxd,
      'cd /workspace/modes && for f in dir link plain suid tmp; do stat -c %A "$f"; done',
    );
    expect(ls.trim().split('\n')).toEqual(entries.map((e) => e.mode));
  });

  test('an upload larger than the 1 MiB JSON limit streams (agent mode too)', async () => {
    const { stream, sha256 } = patternStream(8 * 1024 * 1024 + 3);
    const put = await rawRequest(base, 'PUT', filesUrl('agent', 'workspace/big.bin'), {
      headers: { ...alice, 'content-type': 'application/octet-stream' },
      body: stream,
    });
    expect(put.status, put.body.toString()).toBe(201);
    expect(JSON.parse(put.body.toString())).toEqual({
      path: '/workspace/big.bin',
      size: 8 * 1024 * 1024 + 3,
      sha256: sha256(),
    });
  });

  test('every escape is refused with 400 path_outside_workspace and nothing is written', async () => {
    await shIn(sandboxd, 'ln -s /etc /workspace/etclink; echo secret > /tmp/outside.txt');
    const refusedWith = async (method: string, path: string, body?: Buffer) => {
      const res = await rawRequest(base, method, path, { headers: alice, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}: ${res.body.toString()}`).toBe(400);
      expect(JSON.parse(res.body.toString())).toMatchObject({ error: 'path_outside_workspace' });
    };
    const x = Buffer.from('evil');
    await refusedWith('PUT', filesUrl('code', 'workspace%2F..%2Fx'), x);
    await refusedWith('PUT', filesUrl('code', 'workspace/..%2Fx'), x);
    // fetch and the URL parser resolve a literal `..`: the path that reaches the route is
    // then /x, outside the workspace all the same.
    await refusedWith('PUT', filesUrl('code', 'workspace/../x'), x);
    await refusedWith('PUT', filesUrl('code', 'etc/x'), x);
    await refusedWith('PUT', filesUrl('code', 'workspace/etclink/x'), x);
    await refusedWith('PUT', filesUrl('code', 'workspace/etclink/deeper/x'), x);
    await refusedWith('GET', filesUrl('code', 'workspace/etclink/hostname'));
    await refusedWith('GET', filesUrl('code', 'workspace/etclink'));
    await refusedWith('GET', filesUrl('code', 'tmp/outside.txt'));
    await refusedWith('GET', `/api/v1/sandboxes/code/files/?path=/workspace/etclink&namespace=${ns.name}`);
    await refusedWith('GET', `/api/v1/sandboxes/code/files/?path=/workspace/../etc&namespace=${ns.name}`);
    await refusedWith('GET', `/api/v1/sandboxes/code/files/?path=workspace&namespace=${ns.name}`);
    await refusedWith('DELETE', filesUrl('code', 'workspace/etclink/hostname'));
    await refusedWith('POST', filesUrl('code', 'workspace/etclink/newdir'), Buffer.from('{"op":"mkdir"}'));
    await refusedWith('GET', `/api/v1/sandboxes/code/archive?path=/workspace/etclink&namespace=${ns.name}`);
    // Nothing appeared anywhere, and what is outside is as it was.
    expect(
      await shIn(
        sandboxd,
        'for p in /x /etc/x /etc/deeper /etc/newdir /workspace/x; do test -e $p && echo "$p exists"; done; ' +
          'cat /tmp/outside.txt; test -e /etc/hostname && echo kept; ls -A /workspace | grep -c svc-tmp',
      ),
    ).toBe('secret\nkept\n0\n');
  });

  test('bob is refused on every route, and alice on a stopped sandbox with 409', async () => {
    const routes: [string, string, Buffer?][] = [
      ['GET', `/api/v1/sandboxes/{id}/files/?path=/workspace&namespace=${ns.name}`],
      ['GET', filesUrl('{id}', 'workspace/a.txt')],
      ['PUT', filesUrl('{id}', 'workspace/a.txt'), Buffer.from('a')],
      ['DELETE', filesUrl('{id}', 'workspace/a.txt')],
      ['POST', filesUrl('{id}', 'workspace/d'), Buffer.from('{"op":"mkdir"}')],
      ['GET', `/api/v1/sandboxes/{id}/archive?path=/workspace&namespace=${ns.name}`],
      ['PUT', `/api/v1/sandboxes/{id}/archive?path=/workspace&namespace=${ns.name}`, Buffer.alloc(1024)],
    ];
    for (const [method, path, body] of routes) {
      const bob = await rawRequest(base, method, path.replace('{id}', 'code'), {
        headers: { 'x-api-key': api.keys.bob },
        ...(body ? { body } : {}),
      });
      expect(bob.status, `${method} ${path}`).toBe(403);
      const stopped = await rawRequest(base, method, path.replace('{id}', 'stopped'), {
        headers: alice,
        ...(body ? { body } : {}),
      });
      expect(stopped.status, `${method} ${path}`).toBe(409);
      expect(JSON.parse(stopped.body.toString())).toMatchObject({ error: 'not_running', phase: 'Stopped' });
      const nobody = await rawRequest(base, method, path.replace('{id}', 'code'), body ? { body } : {});
      expect(nobody.status).toBe(401);
    }
    expect(await shIn(sandboxd, 'test -e /workspace/a.txt || test -e /workspace/d || echo none')).toBe(
      'none\n',
    );
  });

  test('bad parameters are 400s that name the field', async () => {
    const mode = await rawRequest(base, 'PUT', filesUrl('code', 'workspace/m.txt', '&mode=999'), {
      headers: alice,
      body: Buffer.from('m'),
    });
    expect(mode.status).toBe(400);
    expect(JSON.parse(mode.body.toString())).toMatchObject({
      error: 'invalid_request',
      fields: [{ path: 'mode' }],
    });
    const format = await api.call('GET', '/sandboxes/code/archive?path=/workspace&format=rar', {
      key: api.keys.alice,
    });
    expect(format.status).toBe(400);
    const noPath = await api.call('GET', '/sandboxes/code/files/', { key: api.keys.alice });
    expect(noPath.status).toBe(400);
    const recursive = await api.call('DELETE', '/sandboxes/code/files/workspace/x?recursive=yes', {
      key: api.keys.alice,
    });
    expect(recursive.status).toBe(400);
  });

  test('file calls count as activity for idleTimeout', async () => {
    const old = new Date(Date.now() - 3_600_000).toISOString();
    await api.deps.sandboxes.mergePatch(ns.name, 'code', {
      metadata: { annotations: { [Annotations.lastActivity]: old } },
    });
    await api.deps.cache.until(
      ns.name,
      'code',
      (s) => s?.metadata.annotations?.[Annotations.lastActivity] === old,
      10_000,
    );
    const list = await api.call('GET', '/sandboxes/code/files/?path=/workspace', { key: api.keys.alice });
    expect(list.status).toBe(200);
    let s: Sandbox | undefined;
    await eventually(
      async () => {
        s = await api.deps.sandboxes.read(ns.name, 'code');
        return (
          Date.parse(s?.metadata.annotations?.[Annotations.lastActivity] ?? '') > Date.parse(old) + 60_000
        );
      },
      {
        timeoutMs: 10_000,
        describe: () => `last activity ${s?.metadata.annotations?.[Annotations.lastActivity]}`,
      },
    );
  });
});

describe('the TypeScript client', () => {
  test('writes (streamed), reads (whole and by range), lists, moves, deletes and moves folders as archives', async () => {
    const client = new SvcClient({ baseUrl: base, apiKey: api.keys.alice, namespace: ns.name });
    const { stream, sha256 } = patternStream(3 * 1024 * 1024);
    const written = await client.writeFile(
      'code',
      '/workspace/ts/a b.bin',
      Readable.toWeb(stream) as ReadableStream<Uint8Array>,
      {
        mode: '0640',
      },
    );
    expect(written).toEqual({ path: '/workspace/ts/a b.bin', size: 3 * 1024 * 1024, sha256: sha256() });
    const whole = Buffer.from(await (await client.readFile('code', '/workspace/ts/a b.bin')).arrayBuffer());
    expect(createHash('sha256').update(whole).digest('hex')).toBe(written.sha256);
    const part = await client.readFile('code', '/workspace/ts/a b.bin', { range: 'bytes=10-19' });
    expect([part.status, Buffer.from(await part.arrayBuffer())]).toEqual([206, whole.subarray(10, 20)]);
    const listing = await client.listFiles('code', '/workspace/ts');
    expect(listing.entries.map((e) => [e.name, e.mode, e.type])).toEqual([['a b.bin', '-rw-r-----', 'file']]);
    expect(await client.fileOperation('code', '/workspace/ts2', { op: 'mkdir' })).toEqual({
      path: '/workspace/ts2',
    });
    await client.fileOperation('code', '/workspace/ts/a b.bin', { op: 'move', to: '/workspace/ts2/c.bin' });
    const tar = Buffer.from(
      await (await client.downloadArchive('code', '/workspace/ts2', { format: 'tar' })).arrayBuffer(),
    );
    expect(await client.uploadArchive('code', '/workspace/ts3', tar)).toEqual({
      files: 1,
      bytes: 3 * 1024 * 1024,
    });
    await client.deleteFile('code', '/workspace/ts2', { recursive: true });
    await expect(client.readFile('code', '/workspace/ts2/c.bin')).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.writeFile('code', '/etc/x', 'x')).rejects.toMatchObject({
      status: 400,
      code: 'path_outside_workspace',
    });
    const bob = new SvcClient({ baseUrl: base, apiKey: api.keys.bob, namespace: ns.name });
    await expect(bob.listFiles('code', '/workspace')).rejects.toBeInstanceOf(ForbiddenError);
  });
});

describe('a 1 GiB round trip through a real svc api process', () => {
  let served: RunningSvc;
  beforeAll(async () => {
    served = await startApiProcess(inject('kubeconfigPath'), ns.name);
  }, 90_000);
  afterAll(async () => {
    await served?.close();
  });

  test('equal sha256 both ways; neither the API nor sandboxd grows by more than 64 MiB', async () => {
    const pod = (
      await ns.core.listNamespacedPod({ namespace: ns.name, labelSelector: 'svc.io/sandbox=code' })
    ).items[0];
    const container = pod?.status?.containerStatuses?.find((c) => c.name === 'sandbox');
    const sandboxdPid = Number(/^devnode:\/\/(\d+)$/.exec(container?.containerID ?? '')?.[1]);
    expect(sandboxdPid).toBeGreaterThan(0);
    const pids = { api: served.child.pid!, sandboxd: sandboxdPid };
    // A first, smaller round trip loads and compiles what the route needs, so what is
    // measured is what the transfer costs, not the process's warm-up.
    const warm = await rawRequest(served.url, 'PUT', filesUrl('code', 'workspace/warm.bin'), {
      headers: alice,
      body: patternStream(64 * 1024 * 1024).stream,
    });
    expect(warm.status).toBe(201);
    expect((await hashedDownload(served.url, filesUrl('code', 'workspace/warm.bin'), alice)).status).toBe(
      200,
    );

    const { stream, sha256 } = patternStream(GiB);
    const up = await peakGrowth(pids, () =>
      rawRequest(served.url, 'PUT', filesUrl('code', 'workspace/gig.bin'), {
        headers: { ...alice, 'content-length': String(GiB), 'content-type': 'application/octet-stream' },
        body: stream,
      }),
    );
    expect(up.result.status, up.result.body.toString()).toBe(201);
    const sent = sha256();
    expect(JSON.parse(up.result.body.toString())).toEqual({
      path: '/workspace/gig.bin',
      size: GiB,
      sha256: sent,
    });

    const down = await peakGrowth(pids, () =>
      hashedDownload(served.url, filesUrl('code', 'workspace/gig.bin'), alice),
    );
    expect(down.result).toEqual({ status: 200, size: GiB, sha256: sent });
    console.log(
      `1 GiB upload: RSS growth ${JSON.stringify(up.growth)} MiB; download: ${JSON.stringify(down.growth)} MiB`,
    );
    for (const growth of [up.growth, down.growth]) {
      expect(growth.api).toBeLessThanOrEqual(64);
      expect(growth.sandboxd).toBeLessThanOrEqual(64);
    }
    await shIn(sandboxd, 'rm /workspace/gig.bin /workspace/warm.bin');
  }, 600_000);
});
