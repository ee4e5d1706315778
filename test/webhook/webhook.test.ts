import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdmissionregistrationV1Api, CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS, WebhookMetrics, startWebhook, webhookConfigurations } from '../../webhook/index.ts';
import { type CertificateAuthority, createCertificateAuthority } from '../../stack/index.ts';
import { createSandboxAs, kubeRequest, useNamespace } from '../support/index.ts';

const ns = useNamespace('webhook');
const API_SA = 'system:serviceaccount:svc-system:svc-api';
let dir: string;
let ca: CertificateAuthority;
let webhook: { port: number; close(): Promise<void> } | undefined;
const configName = () => `svc-test-${ns.name}`;

const metrics = new WebhookMetrics({ defaultMetrics: false });

async function start() {
  const cert = await ca.issue('webhook', ['127.0.0.1']);
  webhook = await startWebhook({
    tls: { cert: cert.certPem, key: cert.keyPem },
    listen: { host: '127.0.0.1', port: webhook?.port ?? 0 },
    logger: pino({ level: 'silent' }),
    apiServiceAccount: API_SA,
    metrics,
  });
}

/** (Re)registers both configurations, scoped to this file's namespace only. */
async function register(failurePolicy: 'Fail' | 'Ignore') {
  const { mutating, validating } = webhookConfigurations({
    name: configName(),
    failurePolicy,
    caBundle: ca.pem,
    target: { url: `https://127.0.0.1:${webhook!.port}` },
    namespaceSelector: { matchLabels: { 'svc.io/test-namespace': ns.name } },
  });
  const api = ns.kc.makeApiClient(AdmissionregistrationV1Api);
  await api.deleteMutatingWebhookConfiguration({ name: configName() }).catch(() => undefined);
  await api.deleteValidatingWebhookConfiguration({ name: configName() }).catch(() => undefined);
  await api.createMutatingWebhookConfiguration({ body: mutating });
  await api.createValidatingWebhookConfiguration({ body: validating });
}

/** Creates a Sandbox as `user` (impersonated), the way `kubectl apply` by that user would. */
const createAs = (user: string, name: string, spec: object = {}) =>
  createSandboxAs(ns.kc, user, ns.name, name, spec);

function patchAs(user: string, name: string, spec: object) {
  return kubeRequest(ns.kc, {
    method: 'PATCH',
    path: `/apis/svc.io/v1alpha1/namespaces/${ns.name}/sandboxes/${name}`,
    headers: { 'impersonate-user': user, 'content-type': 'application/merge-patch+json' },
    body: { spec },
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-webhook-'));
  ca = await createCertificateAuthority(dir);
  const current = await ns.kc.makeApiClient(CoreV1Api).readNamespace({ name: ns.name });
  current.metadata!.labels = { ...current.metadata!.labels, 'svc.io/test-namespace': ns.name };
  await ns.kc.makeApiClient(CoreV1Api).replaceNamespace({ name: ns.name, body: current });
  const rbac = ns.kc.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: ns.name,
    body: {
      metadata: { name: 'sandbox-writer' },
      rules: [
        {
          apiGroups: ['svc.io'],
          resources: ['sandboxes'],
          verbs: ['get', 'list', 'create', 'update', 'patch'],
        },
      ],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: ns.name,
    body: {
      metadata: { name: 'sandbox-writers' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'sandbox-writer' },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: API_SA },
      ],
    },
  });
  await start();
  await register('Fail');
});

afterAll(async () => {
  const api = ns.kc.makeApiClient(AdmissionregistrationV1Api);
  await api.deleteMutatingWebhookConfiguration({ name: configName() }).catch(() => undefined);
  await api.deleteValidatingWebhookConfiguration({ name: configName() }).catch(() => undefined);
  await webhook?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('admission webhook through the real apiserver', () => {
  it('sets createdBy to the requesting user, whatever the YAML said', async () => {
    const res = await createAs('alice', 'by-alice', { createdBy: 'mallory' });
    expect(res.status).toBe(201);
    expect(res.json<{ spec: { createdBy: string } }>().spec.createdBy).toBe('alice');
    const counted = await metrics.registry.metrics();
    expect(counted).toMatch(
      /^svc_admission_reviews_total\{webhook="mutate",operation="CREATE",allowed="true"\} [1-9]/m,
    );
    expect(counted).toMatch(/^svc_admission_duration_seconds_count\{webhook="validate"\} [1-9]/m);
    expect(res.json<{ spec: { createdBy: string } }>().spec).toMatchObject({ mode: 'code' });
  });

  it("keeps the API's createdBy: the API ServiceAccount writes for its caller", async () => {
    const res = await createAs(API_SA, 'by-api', { createdBy: 'bob' });
    expect(res.status).toBe(201);
    expect(res.json<{ spec: { createdBy: string } }>().spec.createdBy).toBe('bob');
  });

  it.each([
    ['mode', { mode: 'agent' }],
    ['templateRef', { templateRef: { name: 'minimal' } }],
    ['createdBy', { createdBy: 'mallory' }],
    ['cloneFromSnapshot', { cloneFromSnapshot: 'other' }],
  ])('denies a change to %s, naming the code', async (field, change) => {
    const name = `imm-${field.toLowerCase()}`;
    expect((await createAs('alice', name, { cloneFromSnapshot: 'snap' })).status).toBe(201);
    const res = await patchAs('alice', name, change);
    expect(res.status).toBe(422);
    expect(res.body).toContain('immutable_field');
    expect(res.body).toContain(field);
  });

  it('lets a change within policy through', async () => {
    expect((await createAs('alice', 'mutable')).status).toBe(201);
    expect((await patchAs('alice', 'mutable', { stopped: true })).status).toBe(200);
  });

  it('with the webhook down, Fail refuses writes and Ignore lets them through', async () => {
    await webhook!.close();
    try {
      const refused = await createAs('alice', 'while-down-fail');
      expect(refused.status).toBe(500);
      expect(refused.body).toContain('failed calling webhook');
      await register('Ignore');
      const allowed = await createAs('alice', 'while-down-ignore');
      expect(allowed.status).toBe(201);
    } finally {
      await start();
      await register('Fail');
    }
  });

  it('refuses an AdmissionReview over 4 MiB with 413, declared or chunked, and answers the next', async () => {
    const review = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'big',
        kind: { group: 'svc.io', version: 'v1alpha1', kind: 'Sandbox' },
        operation: 'CREATE',
        userInfo: { username: 'alice' },
        object: { metadata: { annotations: { filler: 'x'.repeat(5 * 1024 * 1024) } }, spec: {} },
      },
    });
    for (const chunked of [false, true]) {
      const res = await post(PATHS.validate, Buffer.from(review), chunked);
      expect(res.status, `chunked: ${chunked}`).toBe(413);
      expect(JSON.parse(res.body)).toEqual({
        error: 'payload_too_large',
        message: 'an AdmissionReview is at most 4194304 bytes',
      });
    }
    const small = await post(PATHS.validate, Buffer.from(review.replace(/x{1000,}/, 'x')), false);
    expect(small.status).toBe(200);
    expect(JSON.parse(small.body)).toMatchObject({ response: { uid: 'big', allowed: true } });
  });
});

/** POSTs to the webhook as the apiserver would (TLS, the test CA), with or without Content-Length. */
function post(path: string, body: Buffer, chunked: boolean): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: webhook!.port,
        path,
        method: 'POST',
        ca: ca.pem,
        headers: {
          'content-type': 'application/json',
          ...(chunked ? {} : { 'content-length': body.length }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    if (!chunked) return void req.end(body);
    for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024));
    req.end();
  });
}
