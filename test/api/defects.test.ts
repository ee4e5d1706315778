// What a first real user hit in the API (issue 16, items 2, 3, 6, 7 and 8), against the
// real apiserver with no operator: each test fails without its fix.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, SandboxNamespaces, VERSION, type CloneResponse, type Sandbox } from '../../core/index.ts';
import { kubeRequest, startTestApi, useNamespace, type TestApi } from '../support/index.ts';

const ns = useNamespace('api-defects');
let api: TestApi;
/** Namespaces of this file besides `ns`, deleted after it. */
const made: string[] = [];
/** A VolumeSnapshotClass of this file's own (cluster-scoped, so its name is random). */
const snapshotClass = `defects-${randomBytes(3).toString('hex')}`;
const snapshots = { group: 'snapshot.storage.k8s.io', version: 'v1' };

beforeAll(async () => {
  api = await startTestApi(ns);
  await ns.custom.createClusterCustomObject({
    ...snapshots,
    plural: 'volumesnapshotclasses',
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
  for (const name of made) await ns.core.deleteNamespace({ name }).catch(() => undefined);
  await ns.custom
    .deleteClusterCustomObject({ ...snapshots, plural: 'volumesnapshotclasses', name: snapshotClass })
    .catch(() => undefined);
});

const create = (body: object, key = api.keys.alice) => api.call('POST', '/sandboxes', { key, body });

/** Writes status.phase the way the operator does (status subresource). */
async function setPhase(name: string, phase: string, namespace = ns.name): Promise<void> {
  const res = await kubeRequest(ns.kc, {
    method: 'PATCH',
    path: `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/sandboxes/${name}/status`,
    headers: { 'content-type': 'application/merge-patch+json' },
    body: { status: { phase } },
  });
  expect(res.status).toBe(200);
  await api.deps.cache.until(namespace, name, (s) => s?.status?.phase === phase, 10_000);
}

async function runningSource(name: string): Promise<void> {
  expect((await create({ name, templateRef: { name: 'default' } })).status).toBe(201);
  await setPhase(name, 'Running');
}

describe('item 2: createdBy in a create or clone body', () => {
  it('is accepted and replaced by the caller; other unknown keys stay 400', async () => {
    const res = await create({ name: 'copied', templateRef: { name: 'default' }, createdBy: 'mallory' });
    expect(res.status).toBe(201);
    expect(((await res.json()) as Sandbox).spec.createdBy).toBe('alice');
    expect((await api.deps.sandboxes.read(ns.name, 'copied'))?.spec.createdBy).toBe('alice');

    const unknown = await create({ name: 'unknown-key', templateRef: { name: 'default' }, color: 'red' });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({
      error: 'invalid_request',
      message: expect.stringContaining('color') as unknown,
    });

    await runningSource('copied-src');
    const clone = await api.call('POST', '/sandboxes/copied-src/clone', {
      key: api.keys.alice,
      body: { name: 'copied-clone', createdBy: 'mallory' },
    });
    expect(clone.status).toBe(202);
    expect((await api.deps.sandboxes.read(ns.name, 'copied-clone'))?.spec.createdBy).toBe('alice');
    const bad = await api.call('POST', '/sandboxes/copied-src/clone', {
      key: api.keys.alice,
      body: { name: 'copied-clone-2', color: 'red' },
    });
    expect(bad.status).toBe(400);
  });
});

describe('item 6: the phase before the operator writes status', () => {
  it('is Pending in the create response, an immediate GET and the list', async () => {
    const res = await create({ name: 'fresh', templateRef: { name: 'default' } });
    expect(res.status).toBe(201);
    expect(((await res.json()) as Sandbox).status).toEqual({ phase: 'Pending' });
    const got = await api.call('GET', '/sandboxes/fresh', { key: api.keys.alice });
    expect(((await got.json()) as Sandbox).status).toEqual({ phase: 'Pending' });
    const list = await api.call('GET', '/sandboxes?phase=Pending', { key: api.keys.alice });
    const items = ((await list.json()) as { items: Sandbox[] }).items;
    expect(items.find((s) => s.metadata.name === 'fresh')?.status).toEqual({ phase: 'Pending' });
  });
});

describe('item 3: parallel clones of one source', () => {
  it('ten at once in the same second (five named, five not) all get 202 and their own snapshot', async () => {
    await runningSource('fork');
    // Every request starts in the same second, as when an orchestrator forks agents at once.
    const now = Math.floor(Date.now() / 1000);
    const clock = api.deps.clock;
    api.deps.clock = () => new Date(now * 1000);
    let answers: { status: number; body: CloneResponse }[];
    try {
      answers = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const res = await api.call('POST', '/sandboxes/fork/clone', {
            key: api.keys.alice,
            body: i % 2 === 0 ? { name: `fork-named-${i}` } : {},
          });
          return { status: res.status, body: (await res.json()) as CloneResponse };
        }),
      );
    } finally {
      api.deps.clock = clock;
    }
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
    const taken = answers.map((a) => Number(/^fork-snap-(\d+)$/.exec(a.body.snapshot)?.[1]));
    // The next free seconds: exactly ten consecutive ones from the shared start.
    expect([...taken].sort()).toEqual(Array.from({ length: 10 }, (_, i) => now + i));
    const names = answers.map((a) => a.body.name);
    expect(new Set(names).size).toBe(10);
    for (const [i, a] of answers.entries()) {
      if (i % 2 === 0) expect(a.body.name).toBe(`fork-named-${i}`);
      else expect(a.body.name).toBe(`fork-clone-${/(\d+)$/.exec(a.body.snapshot)![1]}`);
      const clone = await api.deps.sandboxes.read(ns.name, a.body.name);
      expect(clone?.spec.cloneFromSnapshot).toBe(a.body.snapshot);
      const snap = (await ns.custom.getNamespacedCustomObject({
        ...snapshots,
        plural: 'volumesnapshots',
        namespace: ns.name,
        name: a.body.snapshot,
      })) as { spec: { source: { persistentVolumeClaimName: string } } };
      expect(snap.spec.source.persistentVolumeClaimName).toBe('fork-workspace');
    }

    // 409 only when the requested name exists, and no snapshot is left behind by it.
    const count = async () =>
      (
        (await ns.custom.listNamespacedCustomObject({
          ...snapshots,
          plural: 'volumesnapshots',
          namespace: ns.name,
        })) as { items: unknown[] }
      ).items.length;
    const before = await count();
    const again = await api.call('POST', '/sandboxes/fork/clone', {
      key: api.keys.alice,
      body: { name: 'fork-named-0' },
    });
    expect(again.status).toBe(409);
    expect(await count()).toBe(before);
  }, 60_000);
});

describe('item 7: a template that does not exist', () => {
  it('is 400 template_not_found naming the templates the caller may use', async () => {
    const res = await create({ name: 'typo', templateRef: { name: 'defualt' } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string; templates: object[] };
    expect(body.error).toBe('template_not_found');
    expect(body.message).toMatch(/^ClusterSandboxTemplate "defualt" not found; templates you may use: /);
    expect(body.message).toContain('default (ClusterSandboxTemplate)');
    expect(body.templates).toContainEqual({ kind: 'ClusterSandboxTemplate', name: 'default' });
    expect(await api.deps.sandboxes.read(ns.name, 'typo')).toBeUndefined();
  });

  it('lists only what governance allowedTemplates lets through, namespaced templates included', async () => {
    const target = `${ns.name}-allowed`;
    await ns.core.createNamespace({
      body: { metadata: { name: target, labels: { [SandboxNamespaces.label]: SandboxNamespaces.enabled } } },
    });
    made.push(target);
    await ns.custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'sandboxtemplates',
      namespace: target,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'SandboxTemplate',
        metadata: { name: 'team' },
        spec: { image: 'docker.io/library/debian:bookworm' },
      },
    });
    const policy = await api.call('PUT', `/governance/policies/${target}`, {
      key: api.keys.admin,
      body: { allowedTemplates: ['SandboxTemplate/team'] },
    });
    expect(policy.status).toBe(200);
    const res = await create({ name: 'typo', namespace: target, templateRef: { name: 'teem' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'template_not_found',
      message: 'ClusterSandboxTemplate "teem" not found; templates you may use: team (SandboxTemplate)',
      templates: [{ kind: 'SandboxTemplate', name: 'team' }],
    });
    const ok = await create({
      name: 'right',
      namespace: target,
      templateRef: { name: 'team', kind: 'SandboxTemplate' },
    });
    expect(ok.status).toBe(201);
  });
});

describe('item 8: a clone naming a snapshot class that does not exist', () => {
  it('is 400 snapshot_class_not_found, with nothing created; an existing class is accepted', async () => {
    await runningSource('classy');
    const res = await api.call('POST', '/sandboxes/classy/clone', {
      key: api.keys.alice,
      body: { name: 'classy-copy', snapshotClass: 'nope' },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'snapshot_class_not_found',
      message: `VolumeSnapshotClass "nope" does not exist; omit snapshotClass for the cluster's default`,
    });
    expect(await api.deps.sandboxes.read(ns.name, 'classy-copy')).toBeUndefined();

    const ok = await api.call('POST', '/sandboxes/classy/clone', {
      key: api.keys.alice,
      body: { name: 'classy-copy', snapshotClass },
    });
    expect(ok.status).toBe(202);
    const snap = (await ns.custom.getNamespacedCustomObject({
      ...snapshots,
      plural: 'volumesnapshots',
      namespace: ns.name,
      name: ((await ok.json()) as CloneResponse).snapshot,
    })) as { spec: { volumeSnapshotClassName?: string } };
    expect(snap.spec.volumeSnapshotClassName).toBe(snapshotClass);
  });
});
