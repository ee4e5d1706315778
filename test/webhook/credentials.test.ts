// Credentials and namespaces on direct CR writes (kubectl apply as an impersonated user),
// through the real apiserver and its RBAC authorizer: the webhook admits a Secret only for
// a user who may `get` it (a SubjectAccessReview), never a token or the service's own.
import {
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
  type V1PolicyRule,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, VERSION } from '../../core/index.ts';
import {
  Governance,
  NamespaceGate,
  QuotaLedger,
  SecretAccessReviewer,
  SnapshotOwners,
} from '../../kube/index.ts';
import { sandboxAdmission } from '../../webhook/index.ts';
import { API_SA, createSandboxAs, kubeRequest, useNamespace, useWebhook } from '../support/index.ts';

const ns = useNamespace('whcred');
const suffix = Math.random().toString(16).slice(2, 8);
/** In the webhook's selector but not enabled for sandboxes. */
const plain = `whcred-plain-${suffix}`;
/** Enabled by its label, but the webhook's service namespace: refused anyway. */
const service = `whcred-svc-${suffix}`;
/** Enabled, with a policy that allows no template the tests use. */
const governed = `whcred-gov-${suffix}`;
const webhook = useWebhook(ns, 'credentials', (policies) =>
  sandboxAdmission({
    governance: new Governance(ns.kc, policies, new QuotaLedger(ns.kc)),
    namespaces: new NamespaceGate(ns.kc, service),
    reviewer: new SecretAccessReviewer(ns.kc),
    snapshots: new SnapshotOwners(ns.kc),
    apiServiceAccount: API_SA,
  }),
);
const selector = () => webhook.labels;
const ALICE_VALUE = 'alice-secret-value-5b1e';

async function bindRole(
  namespace: string,
  name: string,
  rules: V1PolicyRule[],
  users: string[],
): Promise<void> {
  const rbac = ns.kc.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: users.map((u) => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: u })),
    },
  });
}

beforeAll(async () => {
  await ns.core.patchNamespace(
    { name: ns.name, body: { metadata: { labels: selector() } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  await ns.core.createNamespace({ body: { metadata: { name: plain, labels: selector() } } });
  await ns.core.createNamespace({
    body: { metadata: { name: service, labels: { ...selector(), 'svc.io/sandboxes': 'enabled' } } },
  });
  await ns.core.createNamespace({
    body: { metadata: { name: governed, labels: { ...selector(), 'svc.io/sandboxes': 'enabled' } } },
  });
  const writer = [{ apiGroups: ['svc.io'], resources: ['sandboxes'], verbs: ['create', 'get', 'patch'] }];
  for (const namespace of [ns.name, plain, service, governed])
    await bindRole(namespace, 'writer', writer, ['alice', 'bob', 'eve', API_SA]);
  // alice may read her own Secret; eve may read every Secret of the namespace.
  await bindRole(
    ns.name,
    'alice-secret',
    [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['alice-openai'], verbs: ['get'] }],
    ['alice'],
  );
  await bindRole(
    ns.name,
    'eve-secrets',
    [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
    ['eve'],
  );
  for (const name of ['alice-openai', 'alice-box-sandboxd', 'svc-api-keys', 'svc-sandboxd-key']) {
    await ns.core.createNamespacedSecret({
      namespace: ns.name,
      body: { metadata: { name }, stringData: { key: ALICE_VALUE } },
    });
  }
  await webhook.policies.put({ allowedTemplates: ['other'] }, governed);
}, 60_000);

afterAll(async () => {
  for (const name of [plain, service, governed])
    await ns.core.deleteNamespace({ name }).catch(() => undefined);
}, 30_000);

const env = (secretName: string) => ({ credentials: { env: [{ name: 'X', secretName, key: 'key' }] } });

function expectDenied(res: { status: number; body: string }, detail: string): void {
  expect(res.status, res.body).toBe(403);
  expect(res.body).not.toContain(ALICE_VALUE);
  expect((JSON.parse(res.body) as { message: string }).message).toBe(
    `admission webhook "validate.sandboxes.svc.io" denied the request: policy_violation: ${detail}`,
  );
}

describe('credentials on direct writes', () => {
  it('bob, without get on alice’s Secret, is denied; alice, with it, is admitted', async () => {
    const bobs = await createSandboxAs(ns.kc, 'bob', ns.name, 'bob-steals', env('alice-openai'));
    expectDenied(bobs, `credential_not_allowed: bob may not get Secret alice-openai in namespace ${ns.name}`);
    const files = await createSandboxAs(ns.kc, 'bob', ns.name, 'bob-files', {
      credentials: { files: [{ secretName: 'alice-openai', mountPath: '/s' }] },
    });
    expectDenied(
      files,
      `credential_not_allowed: bob may not get Secret alice-openai in namespace ${ns.name}`,
    );
    const alices = await createSandboxAs(ns.kc, 'alice', ns.name, 'alice-uses', {
      stopped: true,
      ...env('alice-openai'),
    });
    expect(alices.status, alices.body).toBe(201);
  });

  it('token and service Secrets are refused even for a user who may get every Secret', async () => {
    for (const secret of ['alice-box-sandboxd', 'svc-api-keys', 'svc-sandboxd-key']) {
      const res = await createSandboxAs(ns.kc, 'eve', ns.name, `eve-${secret}`, env(secret));
      expect(res.status, res.body).toBe(403);
      expect(res.body).toContain(`credential_not_allowed: Secret ${secret} is`);
      expect(res.body).not.toContain(ALICE_VALUE);
    }
    // eve may use an ordinary Secret she can read.
    const ok = await createSandboxAs(ns.kc, 'eve', ns.name, 'eve-ok', {
      stopped: true,
      ...env('alice-openai'),
    });
    expect(ok.status, ok.body).toBe(201);
  });

  it('an update that adds a Secret the user may not get is denied', async () => {
    const made = await createSandboxAs(ns.kc, 'bob', ns.name, 'bob-plain', { stopped: true });
    expect(made.status, made.body).toBe(201);
    const patched = await kubeRequest(ns.kc, {
      method: 'PATCH',
      path: `/apis/${GROUP}/${VERSION}/namespaces/${ns.name}/sandboxes/bob-plain`,
      headers: { 'impersonate-user': 'bob', 'content-type': 'application/merge-patch+json' },
      body: { spec: env('alice-openai') },
    });
    expectDenied(
      patched,
      `credential_not_allowed: bob may not get Secret alice-openai in namespace ${ns.name}`,
    );
  });

  it('the API’s ServiceAccount passes: the API has applied its own rule', async () => {
    const res = await createSandboxAs(ns.kc, API_SA, ns.name, 'via-api', {
      stopped: true,
      createdBy: 'alice',
      ...env('alice-openai'),
    });
    expect(res.status, res.body).toBe(201);
  });
});

describe('namespaces opt in on direct writes', () => {
  it('a namespace without svc.io/sandboxes=enabled, or the service’s own, is refused', async () => {
    expectDenied(
      await createSandboxAs(ns.kc, 'alice', plain, 'nope'),
      `namespace_not_enabled: namespace ${plain} is not enabled for sandboxes (label it svc.io/sandboxes=enabled)`,
    );
    expectDenied(
      await createSandboxAs(ns.kc, 'alice', service, 'nope'),
      `namespace_not_enabled: namespace ${service} can never hold sandboxes (it is the service's own or a system namespace)`,
    );
    // The API's account is held to it too.
    const api = await createSandboxAs(ns.kc, API_SA, plain, 'nope', { createdBy: 'alice' });
    expect(api.status, api.body).toBe(403);
    expect(api.body).toContain('namespace_not_enabled');
  });
});

describe('governance on direct writes', () => {
  it('a direct write is governed; the API’s ServiceAccount passes, having governed its create itself', async () => {
    expectDenied(
      await createSandboxAs(ns.kc, 'alice', governed, 'direct', { stopped: true }),
      'template_not_allowed: template "default" is not in allowedTemplates [other]',
    );
    const api = await createSandboxAs(ns.kc, API_SA, governed, 'via-api', {
      stopped: true,
      createdBy: 'alice',
    });
    expect(api.status, api.body).toBe(201);
  });
});
