// Archives on the whole stack: a folder of 1,000 files goes out as a tar, tar.gz and zip and
// a tar comes back in, modes, times and an inside link kept; tars with `../evil`,
// `/etc/evil` and links out are refused whole, with nothing written.
import { gzipSync } from 'node:zlib';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SandboxdClient } from '../../kube/index.ts';
import {
  rawRequest,
  shIn,
  startTestApi,
  tarOf,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  waitForSandboxPhase,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('archive');
useDevnode(ns);
const template = useClusterTemplate('archive', ns, {});
useOperator(ns, { identity: 'archive-test', logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }) });
let api: TestApi;
let base: string;
let sandboxd: SandboxdClient;
let alice: Record<string, string>;

const archiveUrl = (query: string) => `/api/v1/sandboxes/code/archive?namespace=${ns.name}&${query}`;

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: 60_000 });
  base = await api.serve();
  alice = { 'x-api-key': api.keys.alice };
  const made = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name: 'code', mode: 'code', templateRef: { name: template } },
  });
  expect(made.status, await made.clone().text()).toBe(201);
  await waitForSandboxPhase(ns, 'code', 'Running');
  sandboxd = await api.deps.sandboxd.client(ns.name, 'code');
}, 180_000);

afterAll(async () => {
  await api?.close();
}, 30_000);

/** Every entry of a folder: path, type, mode, size, link target; files' mtimes and checksums. */
const manifest = (dir: string) =>
  shIn(
    sandboxd,
    `cd ${dir} && find . -mindepth 1 -printf '%p %y %m %s %l\\n' | sort && ` +
      `find . -type f -printf '%p %Ts\\n' | sort && find . -type f | sort | xargs sha256sum`,
  );

describe('archives', () => {
  test('1,000 files out as tar, tar.gz and zip and back in, modes, times and an inside link kept', async () => {
    await shIn(
      sandboxd,
      'mkdir -p /workspace/src && cd /workspace/src && i=0; while [ $i -lt 1000 ]; do ' +
        'd=d$((i % 10)); mkdir -p $d; printf "file %d\\n" $i > $d/f$i.txt; ' +
        'case $((i % 3)) in 0) chmod 755 $d/f$i.txt;; 1) chmod 600 $d/f$i.txt;; esac; i=$((i + 1)); done; ' +
        'chmod 700 d3; touch -d @1600000000 d1/f1.txt; ln -s d0/f0.txt link',
    );
    const source = await manifest('/workspace/src');
    expect(source.split('\n').filter((l) => / f /.test(l))).toHaveLength(1000);
    expect(source).toContain('./link l 777 9 d0/f0.txt');
    expect(source).toContain('./d1/f1.txt 1600000000');
    const bytes = Number(
      await shIn(sandboxd, "find /workspace/src -type f -printf '%s\\n' | awk '{s+=$1} END {print s}'"),
    );

    const tar = await rawRequest(base, 'GET', archiveUrl('path=/workspace/src&format=tar'), {
      headers: alice,
    });
    expect(tar.status).toBe(200);
    expect(tar.headers['content-type']).toBe('application/x-tar');
    expect(tar.headers['content-disposition']).toBe('attachment; filename="src.tar"');
    const put = await rawRequest(base, 'PUT', archiveUrl('path=/workspace/copy'), {
      headers: alice,
      body: tar.body,
    });
    expect(put.status, put.body.toString()).toBe(200);
    expect(JSON.parse(put.body.toString())).toEqual({ files: 1001, bytes });
    expect(await manifest('/workspace/copy')).toBe(source);

    const tgz = await rawRequest(base, 'GET', archiveUrl('path=/workspace/src&format=tar.gz'), {
      headers: alice,
    });
    expect([tgz.status, tgz.headers['content-type'], tgz.body[0], tgz.body[1]]).toEqual([
      200,
      'application/gzip',
      0x1f,
      0x8b,
    ]);
    const put2 = await rawRequest(base, 'PUT', archiveUrl('path=/workspace/copy2'), {
      headers: alice,
      body: tgz.body,
    });
    expect(put2.status, put2.body.toString()).toBe(200);
    expect(await manifest('/workspace/copy2')).toBe(source);

    // The default: a zip, whose end record counts its entries (1,000 files, 10 folders, a link).
    const zip = await rawRequest(base, 'GET', archiveUrl('path=/workspace/src'), { headers: alice });
    expect([zip.status, zip.headers['content-type']]).toEqual([200, 'application/zip']);
    const end = zip.body.subarray(zip.body.length - 22);
    expect(end.readUInt32LE(0)).toBe(0x06054b50);
    expect(end.readUInt16LE(10)).toBe(1011);

    const notDir = await api.call('GET', '/sandboxes/code/archive?path=/workspace/src/link', {
      key: api.keys.alice,
    });
    expect(notDir.status).toBe(400);
    const missing = await api.call('GET', '/sandboxes/code/archive?path=/workspace/none', {
      key: api.keys.alice,
    });
    expect(missing.status).toBe(404);
  }, 180_000);

  test('a tar with ../evil, /etc/evil or a link out is refused whole, with nothing written', async () => {
    const good = { name: 'good.txt', body: 'good' };
    const evil: Record<string, Buffer> = {
      'dot-dot': tarOf([good, { name: '../evil', body: 'evil' }]),
      'dot-dot deeper': tarOf([good, { name: 'a/../../evil', body: 'evil' }]),
      absolute: tarOf([good, { name: '/etc/evil', body: 'evil' }]),
      'a link to /etc': tarOf([good, { name: 'l', type: 'symlink', link: '/etc' }]),
      'a link climbing out': tarOf([good, { name: 'l', type: 'symlink', link: '../../etc' }]),
      'a write through its own link': tarOf([
        good,
        { name: 'l', type: 'symlink', link: '.' },
        { name: 'l/evil', body: 'evil' },
      ]),
    };
    for (const [name, tar] of Object.entries(evil)) {
      for (const body of [tar, gzipSync(tar)]) {
        const res = await rawRequest(base, 'PUT', archiveUrl('path=/workspace/dest'), {
          headers: alice,
          body,
        });
        expect(res.status, `${name}: ${res.body.toString()}`).toBe(400);
        expect(JSON.parse(res.body.toString())).toMatchObject({ error: 'path_outside_workspace' });
      }
    }
    expect(
      await shIn(
        sandboxd,
        'for p in /workspace/dest /workspace/evil /evil /etc/evil /workspace/good.txt; do test -e $p && echo "$p exists"; done; ' +
          'ls -A /workspace | grep -c svc-',
      ),
    ).toBe('0\n');

    const garbage = await rawRequest(base, 'PUT', archiveUrl('path=/workspace/dest'), {
      headers: alice,
      body: Buffer.from('not a tar at all, not even close'.repeat(40)),
    });
    expect([garbage.status, (JSON.parse(garbage.body.toString()) as { error: string }).error]).toEqual([
      400,
      'bad_archive',
    ]);

    // The same archive without its evil entry goes in.
    const fine = await rawRequest(base, 'PUT', archiveUrl('path=/workspace/dest'), {
      headers: alice,
      body: tarOf([good, { name: 'sub/in', type: 'symlink', link: '../good.txt' }]),
    });
    expect([fine.status, JSON.parse(fine.body.toString())]).toEqual([200, { files: 2, bytes: 4 }]);
    expect(await shIn(sandboxd, 'cat /workspace/dest/sub/in')).toBe('good');
  });
});
