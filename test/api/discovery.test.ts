// Discovery (issue 19, item 5): the templates a caller may use under governance, who the
// caller is, and a sandbox's forwarded ports. Real apiserver, the API in-process.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GROUP, VERSION } from '../../core/index.ts';
import { kubeRequest, startTestApi, useNamespace, type TestApi } from '../support/index.ts';

const ns = useNamespace('discovery');
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi(ns);
  await ns.custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: 'sandboxtemplates',
    namespace: ns.name,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'SandboxTemplate',
      metadata: { name: 'team', annotations: { 'svc.io/description': 'The team image' } },
      spec: { image: 'python:3.13', storage: { size: '1Gi' } },
    },
  });
  await ns.custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: 'sandboxtemplates',
    namespace: ns.name,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'SandboxTemplate',
      metadata: { name: 'forbidden' },
      spec: { image: 'debian:bookworm' },
    },
  });
  const put = await api.call('PUT', `/governance/policies/${ns.name}`, {
    key: api.keys.admin,
    // A namespace's own template is allowed by kind and name; a plain name is a cluster template.
    body: { allowedTemplates: ['default', 'SandboxTemplate/team'] },
  });
  expect(put.status, await put.clone().text()).toBe(200);
}, 60_000);
afterAll(async () => api?.close(), 30_000);

describe('templates', () => {
  test('the list holds what governance lets the caller use, both kinds, with their fields', async () => {
    const res = await api.call('GET', '/templates', { key: api.keys.alice });
    expect(res.status).toBe(200);
    const { templates } = (await res.json()) as { templates: Record<string, unknown>[] };
    expect(templates.map((t) => `${t.kind as string}/${t.name as string}`)).toEqual([
      'ClusterSandboxTemplate/default',
      'SandboxTemplate/team',
    ]);
    const team = templates[1]!;
    expect(team).toEqual({
      name: 'team',
      kind: 'SandboxTemplate',
      description: 'The team image',
      image: 'python:3.13',
      resourceVersion: expect.stringMatching(/^\d+$/) as unknown,
      spec: { image: 'python:3.13', storage: { size: '1Gi' } },
      readyMembers: 0,
    });
    expect(templates[0]).toMatchObject({
      name: 'default',
      description: '',
      image: expect.any(String) as unknown,
    });
  });

  test('one by name; 404 for one governance refuses or that does not exist; 400 for a bad name', async () => {
    const one = await api.call('GET', '/templates/team', { key: api.keys.alice });
    expect(one.status).toBe(200);
    expect(await one.json()).toMatchObject({ name: 'team', kind: 'SandboxTemplate', image: 'python:3.13' });
    const refused = await api.call('GET', '/templates/forbidden', { key: api.keys.alice });
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({
      error: 'not_found',
      message: `no template forbidden you may use in namespace ${ns.name}`,
    });
    expect((await api.call('GET', '/templates/nope', { key: api.keys.alice })).status).toBe(404);
    const bad = await api.call('GET', '/templates/Bad_Name', { key: api.keys.alice });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request' });
    const badKind = await api.call('GET', '/templates/team?kind=Pod', { key: api.keys.alice });
    expect(badKind.status).toBe(400);
    expect((await api.call('GET', '/templates')).status).toBe(401);
  });
});

describe('user/me', () => {
  test('alice, the admin, and nobody', async () => {
    const alice = await api.call('GET', '/user/me', { key: api.keys.alice });
    expect(alice.status).toBe(200);
    expect(await alice.json()).toEqual({
      sub: 'alice',
      name: 'alice',
      email: null,
      groups: [],
      isAdmin: false,
    });
    const admin = await api.call('GET', '/user/me', { key: api.keys.admin });
    expect(await admin.json()).toMatchObject({ sub: 'root', isAdmin: true });
    expect((await api.call('GET', '/user/me')).status).toBe(401);
  });
});

describe('ports', () => {
  test("the sandbox's forwarded ports; bob gets 403, an unknown sandbox 404", async () => {
    const made = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: { name: 'web', templateRef: { name: 'default' }, ports: [{ port: 8080 }] },
    });
    expect(made.status, await made.clone().text()).toBe(201);
    const empty = await api.call('GET', '/sandboxes/web/ports', { key: api.keys.alice });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual({ ports: [] });
    const forwarded = { port: 8080, protocol: 'http', internalUrl: `http://pf-web-8080.${ns.name}.svc:8080` };
    const patched = await kubeRequest(ns.kc, {
      method: 'PATCH',
      path: `/apis/${GROUP}/${VERSION}/namespaces/${ns.name}/sandboxes/web/status`,
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { status: { phase: 'Running', forwardedPorts: [forwarded] } },
    });
    expect(patched.status).toBe(200);
    await api.deps.cache.until(ns.name, 'web', (s) => (s?.status?.forwardedPorts?.length ?? 0) > 0, 10_000);
    const res = await api.call('GET', '/sandboxes/web/ports', { key: api.keys.alice });
    expect(await res.json()).toEqual({ ports: [forwarded] });
    expect((await api.call('GET', '/sandboxes/web/ports', { key: api.keys.bob })).status).toBe(403);
    expect((await api.call('GET', '/sandboxes/web/ports', { key: api.keys.admin })).status).toBe(200);
    expect((await api.call('GET', '/sandboxes/nope/ports', { key: api.keys.alice })).status).toBe(404);
  });
});
