// Limits that hold (issue 32): the Pod gets the template's limits field by field whatever
// the request's `resources` leaves out, every container and emptyDir is bounded (CPU,
// memory, ephemeral storage), governance judges those very limits, and sandboxd's port
// cannot be forwarded from the create.
import type { V1Pod } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  kubeRequest,
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
} from '../support/index.ts';

// The documented default (docs/api.md): literal here, so the test says what the promise is.
const DEFAULT_EPHEMERAL = '10Gi';
const ns = useNamespace('plim');
useDevnode(ns);
// The shape of config/samples' `default`: requests and limits for CPU and memory only.
const template = useClusterTemplate('plim', ns, {
  resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { cpu: '2', memory: '4Gi' } },
});
useOperator(ns, { identity: 'plim-test', logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }) });
let api: TestApi;

const create = (body: Record<string, unknown>) =>
  api.call('POST', '/sandboxes', { key: api.keys.alice, body: { templateRef: { name: template }, ...body } });
const putPolicy = (body: unknown) => api.call('PUT', '/governance/policies', { key: api.keys.admin, body });

async function podOf(name: string): Promise<V1Pod> {
  let pod: V1Pod | undefined;
  await expect
    .poll(
      async () => {
        pod = await ns.core.readNamespacedPod({ name, namespace: ns.name }).catch(() => undefined);
        return pod !== undefined;
      },
      { timeout: 30_000, interval: 200, message: `Pod ${name} was not created` },
    )
    .toBe(true);
  return pod!;
}

beforeAll(async () => {
  api = await startTestApi(ns);
  expect((await putPolicy({ maxCpu: '2', maxMemory: '4Gi' })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await api?.close();
});

describe('the Pod gets the limits governance judged', () => {
  it('`limits: {}` keeps the template limits, with the default ephemeral-storage limit', async () => {
    const res = await create({ name: 'lim1', resources: { limits: {} } });
    expect(res.status, await res.clone().text()).toBe(201);
    const pod = await podOf('lim1');
    const main = pod.spec!.containers.find((c) => c.name === 'sandbox')!;
    expect(main.resources).toEqual({
      requests: { cpu: '250m', memory: '512Mi', 'ephemeral-storage': '0' },
      limits: { cpu: '2', memory: '4Gi', 'ephemeral-storage': DEFAULT_EPHEMERAL },
    });
    // Every container the Pod runs, init containers too, is bounded in all three, so the
    // Pod as a whole is; and every emptyDir has a size limit.
    for (const c of [...(pod.spec!.initContainers ?? []), ...pod.spec!.containers]) {
      expect(Object.keys(c.resources?.limits ?? {}).sort(), c.name).toEqual([
        'cpu',
        'ephemeral-storage',
        'memory',
      ]);
    }
    const emptyDirs = pod.spec!.volumes!.filter((v) => v.emptyDir);
    expect(emptyDirs.map((v) => v.name)).toEqual(['svc-bin']);
    for (const v of emptyDirs) expect(v.emptyDir!.sizeLimit, v.name).toBeDefined();
  });

  it('a sandbox field overrides only itself: `limits: {memory}` keeps the template CPU limit', async () => {
    const res = await create({ name: 'lim2', resources: { limits: { memory: '1Gi' } } });
    expect(res.status, await res.clone().text()).toBe(201);
    const main = (await podOf('lim2')).spec!.containers.find((c) => c.name === 'sandbox')!;
    expect(main.resources?.limits).toEqual({
      cpu: '2',
      memory: '1Gi',
      'ephemeral-storage': DEFAULT_EPHEMERAL,
    });
  });

  it('`"cpu":"64"` over maxCpu is refused with the violation, and no Sandbox is written', async () => {
    const res = await create({ name: 'lim3', resources: { limits: { cpu: '64' } } });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: 'policy_violation',
      violations: [{ code: 'cpu_limit_exceeded', message: 'CPU limit 64 is above maxCpu 2' }],
    });
    expect((await api.call('GET', '/sandboxes/lim3', { key: api.keys.alice })).status).toBe(404);
  });

  it('maxEphemeralStorage judges the default ephemeral-storage limit and an explicit one', async () => {
    expect((await putPolicy({ maxCpu: '2', maxMemory: '4Gi', maxEphemeralStorage: '1Gi' })).status).toBe(200);
    try {
      const byDefault = await create({ name: 'lim4' });
      expect(byDefault.status).toBe(403);
      expect(await byDefault.json()).toEqual({
        error: 'policy_violation',
        violations: [
          {
            code: 'ephemeral_storage_limit_exceeded',
            message: `ephemeral-storage limit ${DEFAULT_EPHEMERAL} is above maxEphemeralStorage 1Gi`,
          },
        ],
      });
      const within = await create({ name: 'lim5', resources: { limits: { 'ephemeral-storage': '512Mi' } } });
      expect(within.status, await within.clone().text()).toBe(201);
      const main = (await podOf('lim5')).spec!.containers.find((c) => c.name === 'sandbox')!;
      expect(main.resources?.limits?.['ephemeral-storage']).toBe('512Mi');
    } finally {
      expect((await putPolicy({ maxCpu: '2', maxMemory: '4Gi' })).status).toBe(200);
    }
  });
});

describe("sandboxd's port at create", () => {
  it('the API refuses `ports: [{port: 9000}]` with 400 and the field', async () => {
    const res = await create({ name: 'p9k', ports: [{ port: 9000 }] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; fields: { path: string; message: string }[] };
    expect(body.error).toBe('invalid_request');
    expect(body.fields).toEqual([
      { path: 'ports[0].port', message: "must not be 9000: it is sandboxd's port" },
    ]);
    expect((await api.call('GET', '/sandboxes/p9k', { key: api.keys.alice })).status).toBe(404);
    expect((await ns.core.listNamespacedService({ namespace: ns.name })).items).toEqual([]);
  });

  it('a Sandbox written with kubectl with port 9000 is refused by the CRD', async () => {
    const res = await kubeRequest(ns.kc, {
      method: 'POST',
      path: `/apis/svc.io/v1alpha1/namespaces/${ns.name}/sandboxes`,
      body: {
        apiVersion: 'svc.io/v1alpha1',
        kind: 'Sandbox',
        metadata: { name: 'p9k-kubectl' },
        spec: { templateRef: { name: template }, ports: [{ port: 9000 }] },
      },
    });
    expect(res.status).toBe(422);
    expect(res.json<{ message: string }>().message).toContain("must not be 9000: it is sandboxd's port");
    // A later update cannot add it either.
    const ok = await kubeRequest(ns.kc, {
      method: 'POST',
      path: `/apis/svc.io/v1alpha1/namespaces/${ns.name}/sandboxes`,
      body: {
        apiVersion: 'svc.io/v1alpha1',
        kind: 'Sandbox',
        metadata: { name: 'p9k-later' },
        spec: { templateRef: { name: template }, stopped: true, ports: [{ port: 8080 }] },
      },
    });
    expect(ok.status, ok.body).toBe(201);
    const patched = await kubeRequest(ns.kc, {
      method: 'PATCH',
      path: `/apis/svc.io/v1alpha1/namespaces/${ns.name}/sandboxes/p9k-later`,
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { spec: { ports: [{ port: 8080 }, { port: 9000 }] } },
    });
    expect(patched.status).toBe(422);
    expect(patched.json<{ message: string }>().message).toContain("must not be 9000: it is sandboxd's port");
  });
});

describe('allowedTemplates compares kind and name', () => {
  it('a namespaced SandboxTemplate named like an allowed ClusterSandboxTemplate is refused', async () => {
    // Same name as the cluster template the policy allows, but a namespace's own.
    await ns.custom.createNamespacedCustomObject({
      group: 'svc.io',
      version: 'v1alpha1',
      plural: 'sandboxtemplates',
      namespace: ns.name,
      body: {
        apiVersion: 'svc.io/v1alpha1',
        kind: 'SandboxTemplate',
        metadata: { name: template },
        spec: { image: 'debian:bookworm', resources: { limits: { cpu: '1', memory: '1Gi' } } },
      },
    });
    const namespaced = { kind: 'SandboxTemplate', name: template };
    expect((await putPolicy({ allowedTemplates: [template] })).status).toBe(200);
    try {
      const denied = await create({ name: 'tk1', templateRef: namespaced });
      expect(denied.status).toBe(403);
      expect(await denied.json()).toEqual({
        error: 'policy_violation',
        violations: [
          {
            code: 'template_not_allowed',
            message: `template "SandboxTemplate/${template}" is not in allowedTemplates [${template}]`,
          },
        ],
      });
      // The plain name still admits the ClusterSandboxTemplate, as before.
      const cluster = await create({ name: 'tk2', stopped: true });
      expect(cluster.status, await cluster.clone().text()).toBe(201);
      // `SandboxTemplate/<name>` admits the namespace's own.
      expect((await putPolicy({ allowedTemplates: [`SandboxTemplate/${template}`] })).status).toBe(200);
      const own = await create({ name: 'tk3', templateRef: namespaced, stopped: true });
      expect(own.status, await own.clone().text()).toBe(201);
    } finally {
      expect((await putPolicy({ maxCpu: '2', maxMemory: '4Gi' })).status).toBe(200);
    }
  });
});
