import { request as httpsRequest } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdmissionregistrationV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Policy } from '../../core/index.ts';
import { Governance, PolicyStore, QuotaLedger } from '../../kube/index.ts';
import { PATHS, governanceAdmission, startWebhook, webhookConfigurations } from '../../webhook/index.ts';
import { createCertificateAuthority, type CertificateAuthority } from '../controlplane/index.ts';
import { createSandboxAs, kubeRequest, useNamespace } from '../support/index.ts';

// The webhook as `svc webhook` runs it (governance on), registered with the real apiserver.
// Each case gets a namespace of its own: quota reservations outlive a deleted Sandbox for a
// minute, so cases sharing a namespace would count each other.
const ns = useNamespace('whgov');
const made: string[] = [];
let dir: string;
let ca: CertificateAuthority;
let store: PolicyStore<Policy>;
let webhook: { port: number; close(): Promise<void> } | undefined;
const configName = () => `svc-test-${ns.name}`;
// One label value for all of this file's namespaces, so the configuration reaches no other file's.
const selector = () => ({ 'svc.io/webhook-governance-test': ns.name });

/** A namespace for one case, inside the webhook's selector, where alice and bob may write Sandboxes. */
async function namespace(suffix: string, policy: Policy): Promise<string> {
  const name = `${ns.name}-${suffix}`;
  await ns.core.createNamespace({ body: { metadata: { name, labels: selector() } } });
  made.push(name);
  const rbac = ns.kc.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: name,
    body: {
      metadata: { name: 'writer' },
      rules: [{ apiGroups: ['svc.io'], resources: ['sandboxes'], verbs: ['create', 'get', 'list', 'patch'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: name,
    body: {
      metadata: { name: 'writer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'writer' },
      subjects: ['alice', 'bob'].map((user) => ({
        kind: 'User',
        apiGroup: 'rbac.authorization.k8s.io',
        name: user,
      })),
    },
  });
  await store.put(policy, name);
  return name;
}

/** A direct CR create as `user`, the way `kubectl apply` by that user would do it. */
const createAs = (user: string, namespace: string, name: string, spec: object = {}) =>
  createSandboxAs(ns.kc, user, namespace, name, spec);

interface Status {
  kind: string;
  code: number;
  reason: string;
  message: string;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-webhook-gov-'));
  ca = await createCertificateAuthority(dir);
  const cert = await ca.issue('webhook', ['127.0.0.1']);
  // The test namespace plays the service namespace: its `svc-governance` holds the policies.
  store = new PolicyStore(ns.kc, ns.name, (raw) => Policy.parse(raw));
  webhook = await startWebhook({
    tls: { cert: cert.certPem, key: cert.keyPem },
    listen: { host: '127.0.0.1', port: 0 },
    logger: pino({ level: 'silent' }),
    apiServiceAccount: 'system:serviceaccount:svc-system:svc-api',
    admitCreate: governanceAdmission(new Governance(ns.kc, store, new QuotaLedger(ns.kc))),
  });
  const { mutating, validating } = webhookConfigurations({
    name: configName(),
    failurePolicy: 'Fail',
    caBundle: ca.pem,
    target: { url: `https://127.0.0.1:${webhook.port}` },
    namespaceSelector: { matchLabels: selector() },
  });
  const admission = ns.kc.makeApiClient(AdmissionregistrationV1Api);
  await admission.createMutatingWebhookConfiguration({ body: mutating });
  await admission.createValidatingWebhookConfiguration({ body: validating });
});

afterAll(async () => {
  const admission = ns.kc.makeApiClient(AdmissionregistrationV1Api);
  await admission.deleteMutatingWebhookConfiguration({ name: configName() }).catch(() => undefined);
  await admission.deleteValidatingWebhookConfiguration({ name: configName() }).catch(() => undefined);
  await webhook?.close();
  for (const name of made) await ns.core.deleteNamespace({ name }).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

describe('governance on direct CR writes, through the real apiserver', () => {
  /** The apiserver's Status for a webhook denial: 403 Forbidden, with the webhook's message. */
  function expectDenied(res: { status: number; json<T>(): T }, code: string, detail: string) {
    expect(res.status).toBe(403);
    const status = res.json<Status>();
    expect(status).toMatchObject({ kind: 'Status', code: 403, reason: 'Forbidden' });
    expect(status.message).toBe(
      `admission webhook "validate.sandboxes.svc.io" denied the request: policy_violation: ${code}: ${detail}`,
    );
  }

  it('user_quota_exceeded: maxSandboxesPerUser counts per user', async () => {
    const target = await namespace('user', { maxSandboxesPerUser: 1 });
    expect((await createAs('alice', target, 'first')).status).toBe(201);
    const denied = await createAs('alice', target, 'second');
    expectDenied(
      denied,
      'user_quota_exceeded',
      'you have 1 sandboxes in the namespace; maxSandboxesPerUser is 1',
    );
    expect((await createAs('bob', target, 'bobs')).status).toBe(201);
  });

  it('namespace_quota_exceeded: maxSandboxesTotal counts everyone', async () => {
    const target = await namespace('total', { maxSandboxesTotal: 1 });
    expect((await createAs('alice', target, 'first')).status).toBe(201);
    expectDenied(
      await createAs('bob', target, 'second'),
      'namespace_quota_exceeded',
      'the namespace has 1 sandboxes; maxSandboxesTotal is 1',
    );
  });

  it('template_not_allowed', async () => {
    const target = await namespace('template', { allowedTemplates: ['other'] });
    expectDenied(
      await createAs('alice', target, 'x'),
      'template_not_allowed',
      'template "default" is not in allowedTemplates [other]',
    );
  });

  it('image_registry_not_approved', async () => {
    const target = await namespace('image', { approvedRegistries: ['ghcr.io/acme/'] });
    const res = await createAs('alice', target, 'x', { image: { repository: 'docker.io/evil/x' } });
    expectDenied(
      res,
      'image_registry_not_approved',
      'image "docker.io/evil/x" is not from an approved registry [ghcr.io/acme/]',
    );
  });

  it('runtime_class_not_allowed: a sandbox without an allowed runtime class', async () => {
    const target = await namespace('rtc', { allowedRuntimeClasses: ['gvisor'] });
    expectDenied(
      await createAs('alice', target, 'x'),
      'runtime_class_not_allowed',
      'runtime class (none: the node default) is not in allowedRuntimeClasses [gvisor]',
    );
    expectDenied(
      await createAs('alice', target, 'y', { runtimeClassName: 'kata' }),
      'runtime_class_not_allowed',
      'runtime class "kata" is not in allowedRuntimeClasses [gvisor]',
    );
    expect((await createAs('alice', target, 'z', { runtimeClassName: 'gvisor' })).status).toBe(201);
  });

  it('runtime_class_not_allowed: defaultRuntimeClass admits a template without one', async () => {
    const policy = { allowedRuntimeClasses: ['gvisor'], defaultRuntimeClass: 'gvisor' };
    const target = await namespace('rtc-default', policy);
    expect((await createAs('alice', target, 'x')).status).toBe(201);
  });

  it('a create within policy passes, with the impersonated user as createdBy', async () => {
    const target = await namespace('within', {
      maxSandboxesPerUser: 1,
      maxSandboxesTotal: 1,
      allowedTemplates: ['default'],
      approvedRegistries: ['ghcr.io/acme/'],
    });
    const res = await createAs('alice', target, 'ok', {
      createdBy: 'mallory',
      image: { repository: 'ghcr.io/acme/tools' },
    });
    expect(res.status).toBe(201);
    expect(res.json<{ spec: { createdBy: string } }>().spec.createdBy).toBe('alice');
  });

  it("an immutable change is refused by the CRD's CEL rule before the webhook is asked", async () => {
    // Schema validation (CEL included) runs before validating webhooks, and the CRD's rules
    // cover every immutable field, so through the apiserver the answer is CEL's 422.
    const target = await namespace('immutable', {});
    expect((await createAs('alice', target, 'x')).status).toBe(201);
    const res = await kubeRequest(ns.kc, {
      method: 'PATCH',
      path: `/apis/svc.io/v1alpha1/namespaces/${target}/sandboxes/x`,
      headers: { 'impersonate-user': 'alice', 'content-type': 'application/merge-patch+json' },
      body: { spec: { mode: 'agent' } },
    });
    expect(res.status).toBe(422);
    expect(res.json<Status>()).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(res.json<Status>().message).toContain('immutable_field: mode is immutable');
  });

  it("the webhook's own check denies an immutable change with a structured message", async () => {
    // The same UPDATE review the apiserver would send, were the CRD's rules absent.
    const spec = { templateRef: { name: 'default', kind: 'ClusterSandboxTemplate' }, createdBy: 'alice' };
    const review = await postReview(PATHS.validate, {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u-1',
        kind: { group: 'svc.io', version: 'v1alpha1', kind: 'Sandbox' },
        namespace: 'any',
        operation: 'UPDATE',
        userInfo: { username: 'alice' },
        oldObject: { metadata: { name: 'x' }, spec: { ...spec, mode: 'code' } },
        object: { metadata: { name: 'x' }, spec: { ...spec, mode: 'agent', createdBy: 'bob' } },
      },
    });
    expect(review).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: 'u-1',
        allowed: false,
        status: {
          code: 403,
          reason: 'Forbidden',
          message: 'immutable_field: spec.mode, spec.createdBy cannot be changed after creation',
        },
      },
    });
  });
});

function postReview(path: string, body: object): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port: webhook!.port, path, method: 'POST', ca: ca.pem },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
      },
    );
    req.on('error', reject);
    req.setHeader('content-type', 'application/json');
    req.end(JSON.stringify(body));
  });
}
