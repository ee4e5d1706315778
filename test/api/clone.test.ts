import { createHash } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxNamespaces, type CloneResponse, type Sandbox } from '../../core/index.ts';
import { startEnvironment } from '../../stack/index.ts';
import {
  kubeRequest,
  startTestApi,
  useNamespace,
  type TestApi,
  type TestNamespace,
} from '../support/index.ts';

const ns = useNamespace('api-clone');
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi(ns);
  // A clone's snapshotClass must exist; this one is only named, never used by a driver.
  await ns.custom
    .createClusterCustomObject({
      group: 'snapshot.storage.k8s.io',
      version: 'v1',
      plural: 'volumesnapshotclasses',
      body: {
        apiVersion: 'snapshot.storage.k8s.io/v1',
        kind: 'VolumeSnapshotClass',
        metadata: { name: 'fast' },
        driver: 'fast.example.test',
        deletionPolicy: 'Delete',
      },
    })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
  for (const [name, phase] of [
    ['src', 'Running'],
    ['stopped', 'Stopped'],
    ['fresh', 'Creating'],
  ] as const) {
    const res = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: {
        name,
        mode: 'agent',
        templateRef: { name: 'default' },
        env: [{ name: 'A', value: '1' }],
        ports: [{ port: 8080 }],
        harness: { agent: { entrypoint: ['python', 'agent.py'] } },
      },
    });
    expect(res.status).toBe(201);
    await setPhase(ns, name, phase);
  }
  await api.deps.cache.until(ns.name, 'fresh', (s) => s?.status?.phase === 'Creating', 10_000);
});
afterAll(async () => api.close());

/** Writes status.phase the way the operator does (status subresource), for API-level tests. */
async function setPhase(target: TestNamespace, name: string, phase: string) {
  const res = await kubeRequest(target.kc, {
    method: 'PATCH',
    path: `/apis/svc.io/v1alpha1/namespaces/${target.name}/sandboxes/${name}/status`,
    headers: { 'content-type': 'application/merge-patch+json' },
    body: { status: { phase } },
  });
  expect(res.status).toBe(200);
}

describe('POST /api/v1/sandboxes/{id}/clone', () => {
  it('snapshots the source and creates the clone: 202 with the exact body', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await api.call('POST', '/sandboxes/src/clone', { key: api.keys.admin });
    const after = Math.floor(Date.now() / 1000);
    expect(res.status).toBe(202);
    const body = (await res.json()) as CloneResponse;
    const ts = Number(/^src-clone-(\d+)$/.exec(body.name)?.[1]);
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(after);
    expect(body).toEqual({
      sandboxId: `src-clone-${ts}`,
      name: `src-clone-${ts}`,
      namespace: ns.name,
      snapshot: `src-snap-${ts}`,
      clonedFrom: 'src',
      phase: 'Pending',
      message: `clone accepted; poll GET /api/v1/sandboxes/src-clone-${ts} until status.phase is Running`,
    });

    const custom = ns.kc.makeApiClient(CustomObjectsApi);
    const snapshot = (await custom.getNamespacedCustomObject({
      group: 'snapshot.storage.k8s.io',
      version: 'v1',
      namespace: ns.name,
      plural: 'volumesnapshots',
      name: body.snapshot,
    })) as {
      metadata: { ownerReferences?: unknown[]; labels?: object; annotations?: object };
      spec: unknown;
    };
    expect(snapshot.spec).toEqual({ source: { persistentVolumeClaimName: 'src-workspace' } });
    expect(snapshot.metadata.ownerReferences).toBeUndefined();
    // Whose workspace it holds (the source's owner, not the cloning admin) and where it came
    // from: the webhook admits a Sandbox naming it only from its owner (or the API).
    const source = (await api.deps.sandboxes.read(ns.name, 'src'))!;
    expect(snapshot.metadata.annotations).toMatchObject({ 'svc.io/owner': 'alice' });
    expect(snapshot.metadata.labels).toMatchObject({
      'svc.io/sandbox': 'src',
      'svc.io/source-uid': source.metadata.uid,
      'svc.io/owner-hash': createHash('sha256').update('alice').digest('hex').slice(0, 32),
    });

    const clone = (await api.deps.sandboxes.read(ns.name, body.name))!;
    const { createdBy: _a, ...sourceSpec } = source.spec;
    const { createdBy, cloneFromSnapshot, ...cloneSpec } = clone.spec;
    expect(cloneSpec).toEqual(sourceSpec);
    expect(cloneFromSnapshot).toBe(body.snapshot);
    expect(createdBy).toBe('root'); // the cloning user, not the source's owner
    expect(clone.metadata.annotations?.['svc.io/cloned-from']).toBe('src');
  });

  it('takes a name and a snapshot class from the body', async () => {
    const res = await api.call('POST', '/sandboxes/stopped/clone', {
      key: api.keys.alice,
      body: { name: 'named-clone', snapshotClass: 'fast' },
    });
    expect(res.status).toBe(202);
    const body = (await res.json()) as CloneResponse;
    expect(body.name).toBe('named-clone');
    const clone = (await api.deps.sandboxes.read(ns.name, 'named-clone')) as Sandbox;
    expect(clone.spec.createdBy).toBe('alice');
  });

  it('400 for a name that is not an RFC 1123 label', async () => {
    const res = await api.call('POST', '/sandboxes/src/clone', {
      key: api.keys.alice,
      body: { name: 'Not_A_Label' },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request', fields: [{ path: 'name' }] });
  });

  it('400 with a clear message when the source never ran', async () => {
    const res = await api.call('POST', '/sandboxes/fresh/clone', { key: api.keys.alice });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'source_not_ready',
      message:
        'sandbox fresh has no workspace volume to clone yet: it has never reached Running or Stopped (phase: Creating)',
    });
  });

  it('refuses a cross-namespace clone', async () => {
    const res = await api.call('POST', '/sandboxes/src/clone', {
      key: api.keys.alice,
      body: { namespace: 'elsewhere' },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'cross_namespace_clone' });
  });

  it('409 when the clone name is taken, leaving no snapshot behind', async () => {
    const res = await api.call('POST', '/sandboxes/src/clone', {
      key: api.keys.alice,
      body: { name: 'stopped' },
    });
    expect(res.status).toBe(409);
  });

  it('403 for another user and 404 for a missing source', async () => {
    // bob may not clone alice's sandbox: its snapshot would hold her workspace.
    const bobs = await api.call('POST', '/sandboxes/src/clone', { key: api.keys.bob });
    expect(await bobs.json()).toEqual({ error: 'forbidden', message: 'sandbox src belongs to another user' });
    expect(bobs.status).toBe(403);
    expect((await api.call('POST', '/sandboxes/nope/clone', { key: api.keys.alice })).status).toBe(404);
  });
});

describe('clone without snapshot support', () => {
  it('500 with a message that starts "failed to create VolumeSnapshot:" and names the kind', async () => {
    const bare = await startEnvironment({ withSnapshotCrds: false });
    try {
      const kc = new KubeConfig();
      kc.loadFromFile(bare.kubeconfigPath);
      await kc.makeApiClient(CoreV1Api).createNamespace({
        body: {
          metadata: { name: 'bare', labels: { [SandboxNamespaces.label]: SandboxNamespaces.enabled } },
        },
      });
      const target: TestNamespace = {
        name: 'bare',
        kc,
        core: kc.makeApiClient(CoreV1Api),
        custom: kc.makeApiClient(CustomObjectsApi),
      };
      const bareApi = await startTestApi(target);
      try {
        const made = await bareApi.call('POST', '/sandboxes', {
          key: bareApi.keys.alice,
          body: { name: 'src', templateRef: { name: 'default' } },
        });
        expect(made.status).toBe(201);
        await setPhase(target, 'src', 'Running');
        const res = await bareApi.call('POST', '/sandboxes/src/clone', { key: bareApi.keys.alice });
        expect(res.status).toBe(500);
        const body = (await res.json()) as { error: string; message: string };
        expect(body.message.startsWith('failed to create VolumeSnapshot:')).toBe(true);
        expect(body.message).toContain(
          'no matches for kind "VolumeSnapshot" in version "snapshot.storage.k8s.io/v1"',
        );
      } finally {
        await bareApi.close();
      }
    } finally {
      await bare.dispose();
    }
  });
});
