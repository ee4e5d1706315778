import { NetworkingV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, VERSION, type Sandbox } from '../../core/index.ts';
import { mergePatch } from '../../kube/index.ts';
import { startTestApi, useNamespace, type TestApi } from '../support/index.ts';

const ns = useNamespace('api-sbx');
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi(ns);
});
afterAll(async () => api.close());

const create = (key: string, body: object) => api.call('POST', '/sandboxes', { key, body });

describe('POST /api/v1/sandboxes', () => {
  it('creates a Sandbox owned by the caller, with defaults applied (201)', async () => {
    const res = await create(api.keys.alice, { name: 'first', templateRef: { name: 'default' } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Sandbox;
    expect(body.metadata).toMatchObject({ name: 'first', namespace: ns.name });
    expect(body.spec).toMatchObject({
      mode: 'code',
      createdBy: 'alice',
      stopped: false,
      templateRef: { name: 'default', kind: 'ClusterSandboxTemplate' },
    });
  });

  it('answers 409 when the name exists', async () => {
    expect((await create(api.keys.bob, { name: 'twice', templateRef: { name: 'default' } })).status).toBe(
      201,
    );
    const res = await create(api.keys.bob, { name: 'twice', templateRef: { name: 'default' } });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: 'conflict' });
  });

  it('answers 400 with field paths for bad input', async () => {
    const res = await create(api.keys.alice, {
      name: 'Bad_Name',
      templateRef: {},
      mode: 'shell',
      ports: [{ port: 70000 }],
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; fields: { path: string }[] };
    expect(body.error).toBe('invalid_request');
    expect(body.fields.map((f) => f.path).sort()).toEqual([
      'mode',
      'name',
      'ports[0].port',
      'templateRef.name',
    ]);
  });

  it('refuses a cloneFromSnapshot in the body: only clone sets it', async () => {
    const res = await create(api.keys.alice, {
      name: 'spoof',
      templateRef: { name: 'default' },
      cloneFromSnapshot: 'someone-elses-snap',
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('cloneFromSnapshot');
  });

  it('answers 400 for a body that is not JSON, never 500', async () => {
    const res = await api.call('POST', '/sandboxes', { key: api.keys.alice, body: '{nope' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'bad_request', message: 'request body is not valid JSON' });
  });
});

describe('POST /api/v1/sandboxes: names taken by objects no sandbox of that name owns', () => {
  const conflict = (name: string, kind: string, object: string) => ({
    error: 'name_conflict',
    message: `sandbox name "${name}" is taken: ${kind} ${object} exists in namespace ${ns.name} and is not a sandbox's of that name`,
    conflicts: [{ kind, name: object }],
  });

  beforeAll(async () => {
    const namespace = ns.name;
    await ns.core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: 'data-workspace' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    await ns.core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'victim-sandboxd' }, stringData: { token: 'theirs' } },
    });
    await ns.core.createNamespacedPod({
      namespace,
      body: { metadata: { name: 'busy' }, spec: { containers: [{ name: 'c', image: 'debian:bookworm' }] } },
    });
    await ns.core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'pf-web-8080' }, spec: { ports: [{ port: 8080 }] } },
    });
    await ns.kc.makeApiClient(NetworkingV1Api).createNamespacedNetworkPolicy({
      namespace,
      body: { metadata: { name: 'sandbox-fenced' }, spec: { podSelector: {} } },
    });
  });

  it.each([
    ['data', 'PersistentVolumeClaim', 'data-workspace', {}],
    ['victim', 'Secret', 'victim-sandboxd', {}],
    ['busy', 'Pod', 'busy', {}],
    ['web', 'Service', 'pf-web-8080', { ports: [{ port: 8080 }] }],
  ])('409 name_conflict for %s: its %s %s is taken', async (name, kind, object, extra) => {
    const res = await create(api.keys.bob, { name, templateRef: { name: 'default' }, ...extra });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual(conflict(name, kind, object));
    // Nothing was written.
    expect((await api.call('GET', `/sandboxes/${name}`, { key: api.keys.admin })).status).toBe(404);
  });

  it("409 name_conflict for a NetworkPolicy of the sandbox's name", async () => {
    const res = await create(api.keys.bob, { name: 'fenced', templateRef: { name: 'default' } });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual(conflict('fenced', 'NetworkPolicy', 'sandbox-fenced'));
  });

  it('409 name_conflict for a new port whose Service name is taken (POST …/ports)', async () => {
    expect((await create(api.keys.alice, { name: 'ported', templateRef: { name: 'default' } })).status).toBe(
      201,
    );
    await ns.core.createNamespacedService({
      namespace: ns.name,
      body: { metadata: { name: 'pf-ported-9090' }, spec: { ports: [{ port: 9090 }] } },
    });
    const res = await api.call('POST', '/sandboxes/ported/ports', {
      key: api.keys.alice,
      body: { port: 9090 },
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      error: 'name_conflict',
      message: `port 9090 of sandbox ported cannot be forwarded: Service pf-ported-9090 exists in namespace ${ns.name} and is not a sandbox's of that name`,
      conflicts: [{ kind: 'Service', name: 'pf-ported-9090' }],
    });
    const sandbox = (await (
      await api.call('GET', '/sandboxes/ported', { key: api.keys.alice })
    ).json()) as Sandbox;
    expect(sandbox.spec.ports ?? []).toEqual([]);
  });

  it('names every object taken, and a free name is still created', async () => {
    await ns.core.createNamespacedSecret({
      namespace: ns.name,
      body: { metadata: { name: 'busy-sandboxd' } },
    });
    const res = await create(api.keys.bob, { name: 'busy', templateRef: { name: 'default' } });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { conflicts: unknown[] }).conflicts).toEqual([
      { kind: 'Pod', name: 'busy' },
      { kind: 'Secret', name: 'busy-sandboxd' },
    ]);
    expect((await create(api.keys.alice, { name: 'free', templateRef: { name: 'default' } })).status).toBe(
      201,
    );
  });
});

describe('GET, list, stop, resume, DELETE', () => {
  beforeAll(async () => {
    for (const [key, name, mode] of [
      [api.keys.alice, 'a-code', 'code'],
      [api.keys.alice, 'a-agent', 'agent'],
      [api.keys.bob, 'b-code', 'code'],
    ] as const) {
      expect((await create(key, { name, mode, templateRef: { name: 'default' } })).status).toBe(201);
    }
    await api.deps.cache.until(ns.name, 'b-code', (s) => s !== undefined, 10_000);
  });

  it('gets a sandbox with its status', async () => {
    const res = await api.call('GET', '/sandboxes/a-code', { key: api.keys.alice });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Sandbox;
    expect(body.metadata.name).toBe('a-code');
    expect(body.status).toEqual({ phase: 'Pending' }); // no operator here: it never wrote status
  });

  it('404 for a sandbox that does not exist, 403 for another user', async () => {
    expect((await api.call('GET', '/sandboxes/nope', { key: api.keys.alice })).status).toBe(404);
    expect((await api.call('GET', '/sandboxes/b-code', { key: api.keys.alice })).status).toBe(403);
  });

  it('lists only the caller own sandboxes, an admin sees all, with a mode filter', async () => {
    const names = async (key: string, query = '') => {
      const res = await api.call('GET', `/sandboxes?namespace=${ns.name}${query}`, { key });
      expect(res.status).toBe(200);
      return ((await res.json()) as { items: Sandbox[] }).items.map((s) => s.metadata.name);
    };
    expect(await names(api.keys.bob)).toEqual(['b-code', 'twice']);
    expect(await names(api.keys.alice, '&mode=agent')).toEqual(['a-agent']);
    expect(await names(api.keys.admin)).toEqual(
      expect.arrayContaining(['a-agent', 'a-code', 'b-code', 'first', 'twice']),
    );
  });

  it('paginates with a limit and a continue token', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 10; page++) {
      const query = `/sandboxes?namespace=${ns.name}&limit=2${token ? `&continue=${token}` : ''}`;
      const body = (await (await api.call('GET', query, { key: api.keys.admin })).json()) as {
        items: Sandbox[];
        continue?: string;
      };
      expect(body.items.length).toBeLessThanOrEqual(2);
      seen.push(...body.items.map((s) => s.metadata.name!));
      token = body.continue;
      if (!token) break;
    }
    expect(seen).toEqual([...seen].sort());
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(['a-agent', 'a-code', 'b-code', 'first', 'twice']));
  });

  it('stop and resume set spec.stopped (202)', async () => {
    const stop = await api.call('POST', '/sandboxes/a-code/stop', { key: api.keys.alice });
    expect(stop.status).toBe(202);
    expect(((await stop.json()) as Sandbox).spec.stopped).toBe(true);
    const resume = await api.call('POST', '/sandboxes/a-code/resume', { key: api.keys.alice });
    expect(((await resume.json()) as Sandbox).spec.stopped).toBe(false);
  });

  it('records activity on the sandbox for idleTimeout', async () => {
    await api.call('GET', '/sandboxes/a-agent', { key: api.keys.alice });
    const seen = await api.deps.cache.until(
      ns.name,
      'a-agent',
      (s) => Boolean(s?.metadata.annotations?.['svc.io/last-activity']),
      10_000,
    );
    expect(Date.parse(seen!.metadata.annotations!['svc.io/last-activity']!)).toBeGreaterThan(
      Date.now() - 60_000,
    );
  });

  it('deletes (202) and the sandbox is gone', async () => {
    expect((await api.call('DELETE', '/sandboxes/b-code', { key: api.keys.alice })).status).toBe(403);
    expect((await api.call('DELETE', '/sandboxes/b-code', { key: api.keys.bob })).status).toBe(202);
    // No operator runs here: the finalizer the API wrote with the Sandbox holds it, terminating,
    // until one has cleaned up. The API already answers 404 for it.
    const terminating = await api.deps.cache.until(
      ns.name,
      'b-code',
      (s) => s?.metadata.deletionTimestamp !== undefined,
      10_000,
    );
    expect(terminating?.metadata.finalizers).toEqual(['svc.io/finalizer']);
    expect((await api.call('GET', '/sandboxes/b-code', { key: api.keys.bob })).status).toBe(404);
    await ns.custom.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: 'sandboxes',
        namespace: ns.name,
        name: 'b-code',
        body: { metadata: { finalizers: null } },
      },
      mergePatch,
    );
    await api.deps.cache.until(ns.name, 'b-code', (s) => s === undefined, 10_000);
  });
});

describe('GET /api/v1/openapi.json', () => {
  it('serves the checked-in document to an authenticated caller', async () => {
    const { readFile } = await import('node:fs/promises');
    const checkedIn = JSON.parse(
      await readFile(new URL('../../api/openapi.json', import.meta.url), 'utf8'),
    ) as unknown;
    expect((await api.call('GET', '/openapi.json')).status).toBe(401);
    const res = await api.call('GET', '/openapi.json', { key: api.keys.bob });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(checkedIn);
  });
});
