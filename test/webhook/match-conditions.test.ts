// Which writes the webhook configurations leave out (webhook/configurations.ts says why each
// is safe), through the real apiserver: a webhook that refuses every update lets the
// operator's metadata patch through and never sees it, while a user's identical patch is
// reviewed and refused; the mutating webhook sees creates only, and not the API's creates
// that carry createdBy. Creates are validated whoever makes them.
import { describe, expect, it } from 'vitest';
import { SandboxNamespaces } from '../../core/index.ts';
import { WebhookMetrics } from '../../webhook/index.ts';
import type { Sandbox } from '../../core/index.ts';
import { API_SA, createSandboxAs, kubeRequest, useNamespace, useWebhook } from '../support/index.ts';

const OPERATOR = 'svc-test-operator';
const REFUSAL = 'no update passes this webhook';

const ns = useNamespace('whop');
const metrics = new WebhookMetrics({ defaultMetrics: false });
const webhook = useWebhook(
  ns,
  'operator',
  () => ({
    metrics,
    admitUpdate: () => Promise.resolve({ allowed: false, reason: 'refused', message: REFUSAL }),
  }),
  { operatorUsername: OPERATOR, apiUsername: API_SA },
);

const namespace = (suffix: string) =>
  webhook.namespace(
    suffix,
    {},
    {
      labels: { [SandboxNamespaces.label]: SandboxNamespaces.enabled },
      writers: ['alice', OPERATOR, API_SA],
      verbs: ['create', 'get', 'patch'],
    },
  );

/** A merge patch of the Sandbox's metadata as `user`, as the operator writes finalizers. */
const patchMetadataAs = (user: string, namespace: string, name: string, metadata: object) =>
  kubeRequest(ns.kc, {
    method: 'PATCH',
    path: `/apis/svc.io/v1alpha1/namespaces/${namespace}/sandboxes/${name}`,
    headers: { 'impersonate-user': user, 'content-type': 'application/merge-patch+json' },
    body: { metadata },
  });

/** Reviews the webhook answered so far, by webhook (`mutate`, `validate`) and operation. */
async function reviews(): Promise<Record<string, number>> {
  const counted: Record<string, number> = {};
  const metric = await metrics.registry.getSingleMetric('svc_admission_reviews_total')!.get();
  for (const v of metric.values) {
    const key = `${v.labels.webhook} ${v.labels.operation}`;
    counted[key] = (counted[key] ?? 0) + v.value;
  }
  return counted;
}

describe("the operator's writes and the webhooks", () => {
  it("an operator's metadata update is not sent to the webhook; a user's is validated, and refused", async () => {
    const target = await namespace('meta');
    expect((await createSandboxAs(ns.kc, 'alice', target, 'x')).status).toBe(201);
    const before = await reviews();
    expect(before).toEqual({ 'mutate CREATE': 1, 'validate CREATE': 1 });

    const byOperator = await patchMetadataAs(OPERATOR, target, 'x', {
      finalizers: ['svc.io/test-cleanup'],
      annotations: { 'svc.io/test-member': 'pod-1' },
    });
    expect(byOperator.status).toBe(200);
    expect(byOperator.json<{ metadata: { finalizers: string[] } }>().metadata.finalizers).toEqual([
      'svc.io/test-cleanup',
    ]);
    expect(await reviews()).toEqual(before);

    const byUser = await patchMetadataAs('alice', target, 'x', {
      annotations: { 'svc.io/test-member': 'pod-2' },
    });
    expect(byUser.status).toBe(403);
    expect(byUser.json<{ message: string }>().message).toBe(
      `admission webhook "validate.sandboxes.svc.io" denied the request: ${REFUSAL}`,
    );
    expect(await reviews()).toEqual({ ...before, 'validate UPDATE': 1 });

    // The finalizer goes as the operator takes it off: again without a review.
    expect((await patchMetadataAs(OPERATOR, target, 'x', { finalizers: null })).status).toBe(200);
    expect(await reviews()).toEqual({ ...before, 'validate UPDATE': 1 });
  });

  it("a Sandbox the operator's identity creates is still reviewed", async () => {
    const target = await namespace('create');
    const before = await reviews();
    expect((await createSandboxAs(ns.kc, OPERATOR, target, 'y')).status).toBe(201);
    const after = await reviews();
    expect(after['mutate CREATE']).toBe((before['mutate CREATE'] ?? 0) + 1);
    expect(after['validate CREATE']).toBe((before['validate CREATE'] ?? 0) + 1);
  });

  it("the API's create with createdBy skips the mutating webhook, and keeps its createdBy", async () => {
    const target = await namespace('api');
    const before = await reviews();
    const res = await createSandboxAs(ns.kc, API_SA, target, 'by-api', { createdBy: 'alice' });
    expect(res.status).toBe(201);
    expect(res.json<Sandbox>().spec.createdBy).toBe('alice');
    const after = await reviews();
    expect(after['mutate CREATE']).toBe(before['mutate CREATE']);
    expect(after['validate CREATE']).toBe(before['validate CREATE']! + 1);
  });

  it("the API's create without createdBy, and a user's, are still mutated: createdBy is who wrote it", async () => {
    const target = await namespace('mutated');
    const before = await reviews();
    const byApi = await createSandboxAs(ns.kc, API_SA, target, 'no-owner');
    expect(byApi.status).toBe(201);
    expect(byApi.json<Sandbox>().spec.createdBy).toBe(API_SA);
    const byUser = await createSandboxAs(ns.kc, 'alice', target, 'claimed', { createdBy: 'bob' });
    expect(byUser.status).toBe(201);
    expect(byUser.json<Sandbox>().spec.createdBy).toBe('alice');
    const after = await reviews();
    expect(after['mutate CREATE']).toBe(before['mutate CREATE']! + 2);
    expect(after['validate CREATE']).toBe(before['validate CREATE']! + 2);
  });
});
