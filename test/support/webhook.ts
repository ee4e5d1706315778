import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdmissionregistrationV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { Policy } from '../../core/index.ts';
import { PolicyStore } from '../../kube/index.ts';
import { startWebhook, webhookConfigurations, type WebhookOptions } from '../../webhook/index.ts';
import { type CertificateAuthority, createCertificateAuthority } from '../../stack/index.ts';
import type { TestNamespace } from './kube.ts';

/** The API's service account, as the chart names it: trusted by the webhook to set createdBy. */
export const API_SA = 'system:serviceaccount:svc-system:svc-api';

/** The admission checks a test file plugs into the webhook, as `cmd/webhook.ts` would. */
export type WebhookAdmission = Pick<
  WebhookOptions,
  'admitCreate' | 'admitUpdate' | 'admitWarmPool' | 'apiServiceAccount' | 'metrics'
>;

export interface TestWebhook {
  /** Valid once `beforeAll` has run, as are the fields below. */
  readonly port: number;
  readonly ca: CertificateAuthority;
  /** The test namespace plays the service namespace: its `svc-governance` holds the policies. */
  readonly policies: PolicyStore<Policy>;
  /** The labels that put a namespace in the webhook's selector. */
  readonly labels: Record<string, string>;
  /**
   * A namespace `<test namespace>-<suffix>` in the selector, with `policy`, deleted after the
   * file; `writers` get a Role `writer` with `verbs` on sandboxes.
   */
  namespace(
    suffix: string,
    policy: Policy,
    opts?: { labels?: Record<string, string>; writers?: string[]; verbs?: string[] },
  ): Promise<string>;
}

/**
 * The webhook as `svc webhook` runs it, registered with the real apiserver (failurePolicy
 * Fail) for the calling test file only: started before its tests, unregistered after.
 * `admission` is called once the test namespace exists, with the policy store.
 */
export function useWebhook(
  ns: TestNamespace,
  name: string,
  admission: (policies: PolicyStore<Policy>) => WebhookAdmission,
  /** Whose writes the configurations leave out, as the chart's do (see `webhookConfigurations`). */
  opts: { operatorUsername?: string; apiUsername?: string } = {},
): TestWebhook {
  const state: { dir?: string; ca?: CertificateAuthority; policies?: PolicyStore<Policy>; port?: number } =
    {};
  let webhook: { port: number; close(): Promise<void> } | undefined;
  const made: string[] = [];
  const configName = () => `svc-test-${ns.name}`;
  // One label value for all of this file's namespaces, so the configuration reaches no other file's.
  const labels = () => ({ [`svc.io/webhook-${name}-test`]: ns.name });
  const admissionApi = () => ns.kc.makeApiClient(AdmissionregistrationV1Api);

  beforeAll(async () => {
    state.dir = await mkdtemp(join(tmpdir(), `svc-webhook-${name}-`));
    state.ca = await createCertificateAuthority(state.dir);
    const cert = await state.ca.issue('webhook', ['127.0.0.1']);
    state.policies = new PolicyStore(ns.kc, ns.name, (raw) => Policy.parse(raw));
    webhook = await startWebhook({
      tls: { cert: cert.certPem, key: cert.keyPem },
      listen: { host: '127.0.0.1', port: 0 },
      logger: pino({ level: 'silent' }),
      apiServiceAccount: API_SA,
      ...admission(state.policies),
    });
    state.port = webhook.port;
    const { mutating, validating } = webhookConfigurations({
      name: configName(),
      failurePolicy: 'Fail',
      caBundle: state.ca.pem,
      target: { url: `https://127.0.0.1:${webhook.port}` },
      namespaceSelector: { matchLabels: labels() },
      ...opts,
    });
    await admissionApi().createMutatingWebhookConfiguration({ body: mutating });
    await admissionApi().createValidatingWebhookConfiguration({ body: validating });
  }, 60_000);

  afterAll(async () => {
    await admissionApi()
      .deleteMutatingWebhookConfiguration({ name: configName() })
      .catch(() => undefined);
    await admissionApi()
      .deleteValidatingWebhookConfiguration({ name: configName() })
      .catch(() => undefined);
    await webhook?.close();
    for (const n of made) await ns.core.deleteNamespace({ name: n }).catch(() => undefined);
    if (state.dir) await rm(state.dir, { recursive: true, force: true });
  }, 30_000);

  return {
    get port() {
      return state.port!;
    },
    get ca() {
      return state.ca!;
    },
    get policies() {
      return state.policies!;
    },
    get labels() {
      return labels();
    },
    async namespace(suffix, policy, opts = {}) {
      const namespace = `${ns.name}-${suffix}`;
      await ns.core.createNamespace({
        body: { metadata: { name: namespace, labels: { ...labels(), ...opts.labels } } },
      });
      made.push(namespace);
      if (opts.writers) {
        const rbac = ns.kc.makeApiClient(RbacAuthorizationV1Api);
        await rbac.createNamespacedRole({
          namespace,
          body: {
            metadata: { name: 'writer' },
            rules: [
              { apiGroups: ['svc.io'], resources: ['sandboxes'], verbs: opts.verbs ?? ['create', 'get'] },
            ],
          },
        });
        await rbac.createNamespacedRoleBinding({
          namespace,
          body: {
            metadata: { name: 'writer' },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'writer' },
            subjects: opts.writers.map((user) => ({
              kind: 'User',
              apiGroup: 'rbac.authorization.k8s.io',
              name: user,
            })),
          },
        });
      }
      await state.policies!.put(policy, namespace);
      return namespace;
    },
  };
}
