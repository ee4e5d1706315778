import { PATHS } from './server.ts';

export type WebhookConfigurationOptions = {
  /** `Fail` blocks Sandbox writes while the webhook is down; `Ignore` lets them through. */
  failurePolicy: 'Fail' | 'Ignore';
  /** In a cluster: the webhook Service. In dev and tests: a URL on 127.0.0.1. */
  target: { service: { namespace: string; name: string; port: number } } | { url: string };
  name?: string;
  /** Limits the webhook to matching namespaces (tests use it to stay in their own). */
  namespaceSelector?: { matchLabels: Record<string, string> };
  /**
   * `system:serviceaccount:<ns>:<name>` of the operator: its updates of Sandboxes and warm
   * pools are not sent to the webhooks (see `operatorWrites`).
   */
  operatorUsername?: string;
  /**
   * `system:serviceaccount:<ns>:<name>` of the API: its creates that carry createdBy skip the
   * mutating webhook (see `apiCreates`).
   */
  apiUsername?: string;
} & (
  | { caBundle: string }
  /**
   * In a cluster with cert-manager: `<namespace>/<Certificate>` (see `webhookCertificates`).
   * The cainjector writes the caBundle, and follows the CA when it rotates.
   */
  | { injectCaFrom: string }
);

/**
 * The Mutating and Validating WebhookConfigurations for Sandboxes, in client-node's model
 * form. One source for the Helm chart, kustomize and the test harness.
 */
export function webhookConfigurations(o: WebhookConfigurationOptions) {
  const name = o.name ?? 'svc-sandbox';
  const clientConfig = (path: string) => ({
    ...('caBundle' in o ? { caBundle: Buffer.from(o.caBundle).toString('base64') } : {}),
    ...('url' in o.target ? { url: `${o.target.url}${path}` } : { service: { ...o.target.service, path } }),
  });
  const common = {
    rules: [
      {
        apiGroups: ['svc.io'],
        apiVersions: ['v1alpha1'],
        resources: ['sandboxes'],
        operations: ['CREATE', 'UPDATE'],
        scope: 'Namespaced',
      },
    ],
    failurePolicy: o.failurePolicy,
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: 10,
    ...(o.namespaceSelector ? { namespaceSelector: o.namespaceSelector } : {}),
  };
  const validatedFor = o.operatorUsername ? { matchConditions: [operatorWrites(o.operatorUsername)] } : {};
  const metadata = {
    name,
    ...('injectCaFrom' in o ? { annotations: { 'cert-manager.io/inject-ca-from': o.injectCaFrom } } : {}),
  };
  return {
    mutating: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata,
      webhooks: [
        {
          name: 'mutate.sandboxes.svc.io',
          clientConfig: clientConfig(PATHS.mutate),
          ...common,
          // It sets createdBy on create and has nothing to do on an update: not called for one.
          rules: [{ ...common.rules[0]!, operations: ['CREATE'] }],
          ...(o.apiUsername ? { matchConditions: [apiCreates(o.apiUsername)] } : {}),
          reinvocationPolicy: 'Never',
        },
      ],
    },
    validating: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata,
      webhooks: [
        {
          name: 'validate.sandboxes.svc.io',
          clientConfig: clientConfig(PATHS.validate),
          ...common,
          ...validatedFor,
        },
        // Warm pools: a pool whose template or image the namespace's policy refuses.
        {
          name: 'validate.sandboxwarmpools.svc.io',
          clientConfig: clientConfig(PATHS.validateWarmPool),
          ...common,
          rules: [{ ...common.rules[0]!, resources: ['sandboxwarmpools'] }],
          ...validatedFor,
        },
      ],
    },
  };
}

/**
 * The operator's updates skip the validating webhooks (the mutating one sees creates only).
 * It writes only metadata to Sandboxes and warm pools (finalizers, the warm-pool member
 * annotation; its status writes go to the status subresource, which the rules do not name)
 * and never spec (DESIGN decision 11), while everything the webhook enforces on an update is
 * about spec: immutability, governance of a changed spec, credentials, snapshots, reserved
 * env. So a review of an operator update can only say yes, and costs a webhook call on the
 * path of each sandbox. Creates are still judged whoever makes them, and the CRD's CEL rules
 * still hold for the operator. A matchCondition that cannot be evaluated fails like the
 * webhook (failurePolicy).
 */
export function operatorWrites(username: string) {
  return {
    name: 'not-an-operator-update',
    expression: `request.operation != 'UPDATE' || request.userInfo.username != '${username}'`,
  };
}

/**
 * The API's creates skip the mutating webhook when they carry createdBy: the webhook trusts
 * the API's ServiceAccount to have set it from its caller's identity and would answer yes
 * without a patch (webhook/created-by.ts), so the call is a round trip on the way to every
 * sandbox made through the API for nothing. One without createdBy is still sent (and gets
 * the API's own name, as before). The validating webhook still sees every create.
 */
export function apiCreates(username: string) {
  return {
    name: 'not-an-api-create-with-createdby',
    expression: `request.userInfo.username != '${username}' || !has(object.spec) || !has(object.spec.createdBy)`,
  };
}
