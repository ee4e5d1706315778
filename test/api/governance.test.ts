import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AdmissionregistrationV1Api,
  CustomObjectsApi,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Policy, SandboxNamespaces } from '../../core/index.ts';
import { Governance, PolicyStore, QuotaLedger } from '../../kube/index.ts';
import { governanceAdmission, startWebhook, webhookConfigurations } from '../../webhook/index.ts';
import { createCertificateAuthority } from '../../stack/index.ts';
import { kubeRequest, startTestApi, useNamespace, type TestApi } from '../support/index.ts';

const ns = useNamespace('gov');
let api: TestApi;
const made: string[] = [];

/** A namespace of its own for one row, so quotas and overrides never meet. */
async function namespace(suffix: string): Promise<string> {
  const name = `${ns.name}-${suffix}`;
  await ns.core.createNamespace({
    body: {
      metadata: {
        name,
        labels: { 'svc.io/test-namespace': name, [SandboxNamespaces.label]: SandboxNamespaces.enabled },
      },
    },
  });
  made.push(name);
  return name;
}

const put = (key: string, body: unknown, target = '') =>
  api.call('PUT', `/governance/policies${target}`, { key, body });
const create = (key: string, namespace: string, body: Record<string, unknown>) =>
  api.call('POST', '/sandboxes', { key, body: { templateRef: { name: 'gov-default' }, ...body, namespace } });

beforeAll(async () => {
  api = await startTestApi(ns);
  const custom = ns.kc.makeApiClient(CustomObjectsApi);
  const isolation: Record<string, object> = {
    'gov-gvisor': { runtimeClassName: 'gvisor' },
    'gov-userns': { hostUsers: false },
  };
  for (const name of ['gov-default', 'gov-other', 'gov-gvisor', 'gov-userns']) {
    await custom
      .createClusterCustomObject({
        group: 'svc.io',
        version: 'v1alpha1',
        plural: 'clustersandboxtemplates',
        body: {
          apiVersion: 'svc.io/v1alpha1',
          kind: 'ClusterSandboxTemplate',
          metadata: { name },
          spec: {
            image: 'docker.io/library/debian:bookworm',
            resources: { limits: { cpu: '1', memory: '1Gi' } },
            storage: { size: '1Gi' },
            timeout: '1h',
            idleTimeout: '10m',
            ...isolation[name],
          },
        },
      })
      .catch((err: { code?: number }) => {
        if (err.code !== 409) throw err;
      });
  }
});
afterAll(async () => {
  await api.close();
  for (const name of made) await ns.core.deleteNamespace({ name }).catch(() => undefined);
});

describe('policy endpoints', () => {
  it('admin only: 401 anonymous, 403 for a non-admin, 200 for an admin', async () => {
    expect((await api.call('PUT', '/governance/policies', { body: {} })).status).toBe(401);
    expect((await put(api.keys.bob, { maxCpu: '2' })).status).toBe(403);
    expect((await api.call('GET', '/governance/policies', { key: api.keys.bob })).status).toBe(403);
    expect((await put(api.keys.admin, {})).status).toBe(200);
  });

  it('fail closed: 401 even for an admin key with neither an OIDC issuer nor devAuth', async () => {
    const closed = await startTestApi(ns, { devAuth: false });
    try {
      expect(
        (await closed.call('PUT', '/governance/policies', { key: closed.keys.admin, body: {} })).status,
      ).toBe(401);
      expect((await closed.call('DELETE', '/governance/policies/x', { key: closed.keys.admin })).status).toBe(
        401,
      );
    } finally {
      await closed.close();
    }
  });

  it('validates strictly: unknown fields and bad quantities are 400 with field paths', async () => {
    const res = await put(api.keys.admin, { maxCpu: 'lots', maxSandboxes: 3, maxTimeout: '1 day' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { fields: { path: string }[] };
    expect(body.fields.map((f) => f.path).sort()).toEqual(['', 'maxCpu', 'maxTimeout']);
    expect(JSON.stringify(body)).toContain('maxSandboxes');
  });

  it('a namespace override applies field by field, and DELETE restores the cluster value', async () => {
    const target = await namespace('override');
    expect((await put(api.keys.admin, { maxCpu: '4', maxMemory: '8Gi' })).status).toBe(200);
    expect((await put(api.keys.admin, { maxCpu: '500m', maxMemory: '' }, `/${target}`)).status).toBe(400);
    expect((await put(api.keys.admin, { maxCpu: '500m' }, `/${target}`)).status).toBe(200);
    const effective = await api.call('GET', `/governance/effective?namespace=${target}`, {
      key: api.keys.bob,
    });
    expect(await effective.json()).toEqual({
      namespace: target,
      policy: { maxCpu: '500m', maxMemory: '8Gi' },
    });
    const denied = await create(api.keys.alice, target, { name: 'big' });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toEqual({
      error: 'policy_violation',
      violations: [{ code: 'cpu_limit_exceeded', message: 'CPU limit 1 is above maxCpu 500m' }],
    });
    expect((await api.call('DELETE', `/governance/policies/${target}`, { key: api.keys.admin })).status).toBe(
      204,
    );
    expect((await api.call('DELETE', `/governance/policies/${target}`, { key: api.keys.admin })).status).toBe(
      404,
    );
    expect((await create(api.keys.alice, target, { name: 'big' })).status).toBe(201);
    expect((await put(api.keys.admin, {})).status).toBe(200);
  });

  it('reports a malformed stored policy loudly, never as "no limits"', async () => {
    const target = await namespace('malformed');
    const store = new PolicyStore(ns.kc, ns.name, (raw) => Policy.parse(raw));
    await store.put({ maxCpu: '1' }, target);
    const cm = await ns.core.readNamespacedConfigMap({ name: 'svc-governance', namespace: ns.name });
    cm.data![`namespace.${target}`] = '{"maxCpu": "lots"';
    await ns.core.replaceNamespacedConfigMap({ name: 'svc-governance', namespace: ns.name, body: cm });
    const res = await create(api.keys.alice, target, { name: 'x' });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: 'policy_malformed' });
    expect((await api.call('DELETE', `/governance/policies/${target}`, { key: api.keys.admin })).status).toBe(
      204,
    );
  });
});

describe('each violation code end to end through POST /sandboxes', () => {
  const rows: [string, Policy, Record<string, unknown>, number][] = [
    ['template_not_allowed', { allowedTemplates: ['gov-other'] }, {}, 0],
    [
      'image_registry_not_approved',
      { approvedRegistries: ['ghcr.io/acme/'] },
      { image: { repository: 'docker.io/evil/x' } },
      0,
    ],
    ['namespace_quota_exceeded', { maxSandboxesTotal: 1 }, {}, 1],
    ['user_quota_exceeded', { maxSandboxesPerUser: 1 }, {}, 1],
    ['cpu_limit_exceeded', { maxCpu: '2' }, { resources: { limits: { cpu: '2001m' } } }, 0],
    ['memory_limit_exceeded', { maxMemory: '1Gi' }, { resources: { limits: { memory: '1025Mi' } } }, 0],
    ['storage_limit_exceeded', { maxStorage: '1Gi' }, { resources: { storage: '2Gi' } }, 0],
    ['timeout_exceeded', { maxTimeout: '1h' }, { timeout: '90m' }, 0],
    ['idle_timeout_exceeded', { maxIdleTimeout: '5m' }, {}, 0],
    ['agent_sandbox_quota_exceeded', { maxAgentSandboxes: 1 }, { mode: 'agent' }, 1],
    [
      'agent_image_not_approved',
      { allowedAgentImages: ['ghcr.io/acme/agents/'] },
      { mode: 'agent', image: { repository: 'ghcr.io/acme/other' } },
      0,
    ],
  ];
  it.each(rows)('%s', async (code, policy, body, existing) => {
    const target = await namespace(code.replaceAll('_', '-').slice(0, 20).replace(/-+$/, ''));
    expect((await put(api.keys.admin, policy, `/${target}`)).status).toBe(200);
    for (let i = 0; i < existing; i++) {
      expect((await create(api.keys.alice, target, { name: `existing-${i}`, ...body })).status).toBe(201);
    }
    const res = await create(api.keys.alice, target, { name: 'denied', ...body });
    expect(res.status).toBe(403);
    const violations = ((await res.json()) as { violations: { code: string }[] }).violations;
    expect(violations.map((v) => v.code)).toEqual([code]);
  });

  it('applies quotas to clones as to creates', async () => {
    const target = await namespace('clone-quota');
    expect((await put(api.keys.admin, { maxSandboxesPerUser: 1 }, `/${target}`)).status).toBe(200);
    expect((await create(api.keys.alice, target, { name: 'src' })).status).toBe(201);
    const res = await kubeRequest(ns.kc, {
      method: 'PATCH',
      path: `/apis/svc.io/v1alpha1/namespaces/${target}/sandboxes/src/status`,
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { status: { phase: 'Running' } },
    });
    expect(res.status).toBe(200);
    await api.deps.cache.until(target, 'src', (s) => s?.status?.phase === 'Running', 10_000);
    const clone = await api.call('POST', `/sandboxes/src/clone?namespace=${target}`, { key: api.keys.alice });
    expect(clone.status).toBe(403);
    expect(await clone.json()).toMatchObject({
      error: 'policy_violation',
      violations: [{ code: 'user_quota_exceeded' }],
    });
  });
});

describe('runtime classes and user namespaces', () => {
  const refused = (message: string) => ({
    error: 'policy_violation',
    violations: [{ code: 'runtime_class_not_allowed', message }],
  });

  it('allowedRuntimeClasses refuses a template without one, unless defaultRuntimeClass applies', async () => {
    const target = await namespace('rtc-allowed');
    expect((await put(api.keys.admin, { allowedRuntimeClasses: ['gvisor'] }, `/${target}`)).status).toBe(200);
    const denied = await create(api.keys.alice, target, { name: 'plain' });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toEqual(
      refused('runtime class (none: the node default) is not in allowedRuntimeClasses [gvisor]'),
    );
    // The template's own class is judged the same way.
    expect(
      (await create(api.keys.alice, target, { name: 'gv', templateRef: { name: 'gov-gvisor' } })).status,
    ).toBe(201);
    const policy = { allowedRuntimeClasses: ['gvisor'], defaultRuntimeClass: 'gvisor' };
    expect((await put(api.keys.admin, policy, `/${target}`)).status).toBe(200);
    expect((await create(api.keys.alice, target, { name: 'defaulted' })).status).toBe(201);
  });

  it("a Sandbox's own runtimeClassName only from allowedRuntimeClasses", async () => {
    const target = await namespace('rtc-own');
    const own = { name: 'own', runtimeClassName: 'gvisor' };
    const denied = await create(api.keys.alice, target, own);
    expect(denied.status).toBe(403);
    expect(await denied.json()).toEqual(
      refused(
        'a Sandbox may set runtimeClassName only when the policy lists allowedRuntimeClasses; "gvisor" is not allowed',
      ),
    );
    expect((await put(api.keys.admin, { allowedRuntimeClasses: ['gvisor'] }, `/${target}`)).status).toBe(200);
    expect((await create(api.keys.alice, target, own)).status).toBe(201);
  });

  it('hostUsers: false is refused where the cluster has no user namespaces', async () => {
    const target = await namespace('userns');
    const res = await create(api.keys.alice, target, { name: 'userns', templateRef: { name: 'gov-userns' } });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: 'policy_violation',
      violations: [
        {
          code: 'user_namespaces_unavailable',
          message:
            'the template asks for hostUsers: false (a user namespace), but this cluster does not offer user namespaces (node.userNamespaces is off)',
        },
      ],
    });
  });
});

describe('race-free quotas', () => {
  it('20 parallel creates (API and direct CR writes mixed) against maxSandboxesPerUser: 5 leave exactly 5', async () => {
    const target = await namespace('race');
    expect((await put(api.keys.admin, { maxSandboxesPerUser: 5 }, `/${target}`)).status).toBe(200);
    const dir = await mkdtemp(join(tmpdir(), 'svc-gov-'));
    const ca = await createCertificateAuthority(dir);
    const cert = await ca.issue('webhook', ['127.0.0.1']);
    const governance = new Governance(
      ns.kc,
      new PolicyStore(ns.kc, ns.name, (raw) => Policy.parse(raw)),
      new QuotaLedger(ns.kc),
    );
    const webhook = await startWebhook({
      tls: { cert: cert.certPem, key: cert.keyPem },
      listen: { host: '127.0.0.1', port: 0 },
      logger: pino({ level: 'silent' }),
      apiServiceAccount: 'svc-admin', // the identity the in-process API writes with here
      admitCreate: governanceAdmission(governance),
    });
    const admission = ns.kc.makeApiClient(AdmissionregistrationV1Api);
    const { mutating, validating } = webhookConfigurations({
      name: `svc-${target}`,
      failurePolicy: 'Fail',
      caBundle: ca.pem,
      target: { url: `https://127.0.0.1:${webhook.port}` },
      namespaceSelector: { matchLabels: { 'svc.io/test-namespace': target } },
    });
    await admission.createMutatingWebhookConfiguration({ body: mutating });
    await admission.createValidatingWebhookConfiguration({ body: validating });
    const rbac = ns.kc.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: target,
      body: {
        metadata: { name: 'writer' },
        rules: [{ apiGroups: ['svc.io'], resources: ['sandboxes'], verbs: ['create', 'get', 'list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: target,
      body: {
        metadata: { name: 'writer' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'writer' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
      },
    });
    try {
      const viaApi = (i: number) =>
        create(api.keys.alice, target, { name: `api-${i}` }).then((r) => r.status);
      const direct = (i: number) =>
        kubeRequest(ns.kc, {
          method: 'POST',
          path: `/apis/svc.io/v1alpha1/namespaces/${target}/sandboxes`,
          headers: { 'impersonate-user': 'alice' },
          body: {
            apiVersion: 'svc.io/v1alpha1',
            kind: 'Sandbox',
            metadata: { name: `kubectl-${i}` },
            spec: { templateRef: { name: 'gov-default' } },
          },
        }).then((r) => r.status);
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? viaApi(i) : direct(i))),
      );
      expect(statuses.filter((s) => s === 201)).toHaveLength(5);
      expect(statuses.filter((s) => s !== 201).every((s) => s === 403)).toBe(true);
      const list = (await ns.kc.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
        group: 'svc.io',
        version: 'v1alpha1',
        namespace: target,
        plural: 'sandboxes',
      })) as { items: { spec: { createdBy: string } }[] };
      expect(list.items).toHaveLength(5);
      expect(list.items.every((s) => s.spec.createdBy === 'alice')).toBe(true);
    } finally {
      await admission.deleteMutatingWebhookConfiguration({ name: `svc-${target}` });
      await admission.deleteValidatingWebhookConfiguration({ name: `svc-${target}` });
      await webhook.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
