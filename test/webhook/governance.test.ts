import { request as httpsRequest } from 'node:https';
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../core/index.ts';
import { Governance, QuotaLedger } from '../../kube/index.ts';
import { PATHS, governanceAdmission } from '../../webhook/index.ts';
import { createSandboxAs, kubeRequest, useNamespace, useWebhook } from '../support/index.ts';

// The webhook as `svc webhook` runs it (governance on), registered with the real apiserver.
// Each case gets a namespace of its own: quota reservations outlive a deleted Sandbox for a
// minute, so cases sharing a namespace would count each other.
const ns = useNamespace('whgov');
// The test namespace plays the service namespace: its `svc-governance` holds the policies.
const webhook = useWebhook(ns, 'governance', (policies) => ({
  admitCreate: governanceAdmission(new Governance(ns.kc, policies, new QuotaLedger(ns.kc))),
}));

/** A namespace for one case, inside the webhook's selector, where alice and bob may write Sandboxes. */
const namespace = (suffix: string, policy: Policy) =>
  webhook.namespace(suffix, policy, { writers: ['alice', 'bob'], verbs: ['create', 'get', 'list', 'patch'] });

/** A direct CR create as `user`, the way `kubectl apply` by that user would do it. */
const createAs = (user: string, namespace: string, name: string, spec: object = {}) =>
  createSandboxAs(ns.kc, user, namespace, name, spec);

interface Status {
  kind: string;
  code: number;
  reason: string;
  message: string;
}

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
      { host: '127.0.0.1', port: webhook.port, path, method: 'POST', ca: webhook.ca.pem },
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
