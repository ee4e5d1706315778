// What a first real user hit where the operator answers (issue 16, items 7 and 8): a
// Sandbox applied with a mistyped template, and a clone whose snapshot never becomes ready.
// The operator and the API in-process; no devnode, since nothing here needs a running Pod.
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GROUP, VERSION, type CloneResponse, type Sandbox } from '../../core/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  createSandbox,
  startTestApi,
  useClusterTemplate,
  useNamespace,
  useOperator,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('op-defects');
const template = useClusterTemplate('op-defects', ns, {});
useOperator(ns, {
  identity: 'op-defects',
  logger: pino({ level: 'silent' }),
  // A short snapshot wait, so a clone whose snapshot never becomes ready fails in seconds.
  settings: { snapshotWaitSeconds: 2 },
});
let api: TestApi;
/** A VolumeSnapshotClass whose driver is nobody's: its snapshots never become ready. */
const snapshotClass = `never-${randomBytes(3).toString('hex')}`;
const classes = { group: 'snapshot.storage.k8s.io', version: 'v1', plural: 'volumesnapshotclasses' };

beforeAll(async () => {
  api = await startTestApi(ns);
  await ns.custom.createClusterCustomObject({
    ...classes,
    body: {
      apiVersion: 'snapshot.storage.k8s.io/v1',
      kind: 'VolumeSnapshotClass',
      metadata: { name: snapshotClass },
      driver: 'never.example.test',
      deletionPolicy: 'Delete',
    },
  });
});
afterAll(async () => {
  await api.close();
  await ns.custom.deleteClusterCustomObject({ ...classes, name: snapshotClass }).catch(() => undefined);
});

/** The Sandbox `name` once `ok` holds for it, read from the apiserver. */
const until = (name: string, ok: (s: Sandbox) => boolean): Promise<Sandbox> =>
  eventually(
    async () =>
      (await ns.custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'sandboxes',
        namespace: ns.name,
        name,
      })) as Sandbox,
    { timeoutMs: 60_000, until: ok, show: (s) => s.status, describe: `${name} as awaited` },
  );
const ready = (s: Sandbox) => s.status?.conditions?.find((c) => c.type === 'Ready');

describe('item 7: a Sandbox applied with a template that does not exist', () => {
  test('is Error with Ready False (TemplateNotFound) and heals when the template appears', async () => {
    const missing = `typo-${randomBytes(3).toString('hex')}`;
    await createSandbox(ns, 'applied', { templateRef: { name: missing } });
    const s = await until('applied', (s) => s.status?.phase === 'Error');
    const message = `ClusterSandboxTemplate "${missing}" not found`;
    expect(s.status?.message).toBe(message);
    expect(ready(s)).toMatchObject({ status: 'False', reason: 'TemplateNotFound', message });

    await ns.custom.createClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'clustersandboxtemplates',
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'ClusterSandboxTemplate',
        metadata: { name: missing },
        spec: { image: 'docker.io/library/debian:bookworm' },
      },
    });
    try {
      // No devnode here, so it heals as far as Creating (its Pod is made, never run).
      const healed = await until('applied', (s) => s.status?.phase === 'Creating');
      expect(ready(healed)).toMatchObject({ status: 'False', reason: 'PodNotReady' });
    } finally {
      await ns.custom
        .deleteClusterCustomObject({
          group: GROUP,
          version: VERSION,
          plural: 'clustersandboxtemplates',
          name: missing,
        })
        .catch(() => undefined);
    }
  }, 120_000);
});

describe('item 8: a clone whose snapshot class is missing or whose snapshot never becomes ready', () => {
  test('400 snapshot_class_not_found; with a class that never readies, Error naming the snapshot', async () => {
    const made = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: { name: 'src', templateRef: { name: template }, stopped: true },
    });
    expect(made.status).toBe(201);
    await until('src', (s) => s.status?.phase === 'Stopped');
    await api.deps.cache.until(ns.name, 'src', (s) => s?.status?.phase === 'Stopped', 10_000);

    const nope = await api.call('POST', '/sandboxes/src/clone', {
      key: api.keys.alice,
      body: { snapshotClass: 'nope' },
    });
    expect(nope.status).toBe(400);
    expect(await nope.json()).toMatchObject({ error: 'snapshot_class_not_found' });

    const res = await api.call('POST', '/sandboxes/src/clone', {
      key: api.keys.alice,
      body: { name: 'stuck', snapshotClass },
    });
    expect(res.status).toBe(202);
    const { snapshot } = (await res.json()) as CloneResponse;
    const s = await until('stuck', (s) => s.status?.phase === 'Error');
    const message = `VolumeSnapshot "${snapshot}" did not become ready within 2s`;
    expect(s.status?.message).toBe(message);
    expect(ready(s)).toMatchObject({ status: 'False', reason: 'SnapshotUnavailable', message });
  }, 120_000);
});
