// A full volume: devnode gives each claim a tmpfs of its requested size (enforceVolumeSize),
// so a 16 MiB workspace fills up as a real one would. An upload that does not fit is a 507
// `insufficient_storage` with nothing partial left behind; the space is there again after.
import { pino } from 'pino';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { SandboxdClient } from '../../kube/index.ts';
import {
  patternStream,
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

const ns = useNamespace('files-full');
useDevnode(ns, { enforceVolumeSize: true });
const template = useClusterTemplate('files-full', ns, { storage: { size: '16Mi' } });
useOperator(ns, {
  identity: 'files-full-test',
  logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }),
});
const MiB = 1024 * 1024;
let api: TestApi;
let base: string;
let sandboxd: SandboxdClient;
let alice: Record<string, string>;

beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: 60_000 });
  base = await api.serve();
  alice = { 'x-api-key': api.keys.alice };
  const made = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name: 'small', mode: 'code', templateRef: { name: template } },
  });
  expect(made.status, await made.clone().text()).toBe(201);
  await waitForSandboxPhase(ns, 'small', 'Running');
  sandboxd = await api.deps.sandboxd.client(ns.name, 'small');
}, 180_000);

afterAll(async () => {
  await api?.close();
}, 30_000);

const url = (rest: string) =>
  `/api/v1/sandboxes/small/${rest}${rest.includes('?') ? '&' : '?'}namespace=${ns.name}`;
/** What the workspace holds, hidden entries included, and how full it is (KiB used). */
const contents = () =>
  shIn(sandboxd, 'ls -A /workspace; echo; df -k /workspace | tail -1 | awk "{print \\$3}"');

test('an upload larger than the free space is a 507 with nothing partial left behind', async () => {
  expect(await shIn(sandboxd, 'df -k /workspace | tail -1 | awk "{print \\$2}"')).toBe('16384\n');
  const fits = await rawRequest(base, 'PUT', url('files/workspace/keep.bin'), {
    headers: alice,
    body: patternStream(4 * MiB).stream,
  });
  expect(fits.status).toBe(201);
  const before = await contents();

  for (const chunked of [false, true]) {
    const big = await rawRequest(base, 'PUT', url('files/workspace/big.bin'), {
      headers: chunked ? alice : { ...alice, 'content-length': String(32 * MiB) },
      body: patternStream(32 * MiB).stream,
    });
    expect(big.status, big.body.toString()).toBe(507);
    expect(JSON.parse(big.body.toString())).toMatchObject({ error: 'insufficient_storage' });
    expect(await contents()).toBe(before);
  }

  // An archive that does not fit fails while it is spooled: nothing of it is written.
  const bigTar = tarOf([{ name: 'big.txt', body: 'x'.repeat(20 * MiB) }]);
  const archive = await rawRequest(base, 'PUT', url('archive?path=/workspace/unpacked'), {
    headers: alice,
    body: bigTar,
  });
  expect(archive.status, archive.body.toString()).toBe(507);
  expect(await contents()).toBe(before);

  // The space is there again: a file that fits goes in.
  const after = await rawRequest(base, 'PUT', url('files/workspace/after.bin'), {
    headers: alice,
    body: patternStream(8 * MiB).stream,
  });
  expect(after.status).toBe(201);
});
