import { describe, expect, it } from 'vitest';
import { GROUP, VERSION } from '../../core/index.ts';
import { Governance, QuotaLedger } from '../../kube/index.ts';
import { governanceAdmission } from '../../webhook/index.ts';
import { createSandboxAs, kubeRequest, useNamespace, useWebhook } from '../support/index.ts';

// The egress rules on direct CR writes: the webhook as `svc webhook` runs it, registered with
// the real apiserver, refuses what the API refuses, with the same code and message.
const ns = useNamespace('egadm');
const webhook = useWebhook(ns, 'governance', (policies) => ({
  admitCreate: governanceAdmission(new Governance(ns.kc, policies, new QuotaLedger(ns.kc))),
}));

const namespace = (suffix: string, policy: object) =>
  webhook.namespace(suffix, policy, { writers: ['alice'], verbs: ['create', 'get', 'list', 'patch'] });

const TEMPLATE = 'ega-allow';

async function template(): Promise<void> {
  const path = `/apis/${GROUP}/${VERSION}/clustersandboxtemplates`;
  await kubeRequest(ns.kc, { method: 'DELETE', path: `${path}/${TEMPLATE}` });
  const res = await kubeRequest(ns.kc, {
    method: 'POST',
    path,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'ClusterSandboxTemplate',
      metadata: { name: TEMPLATE },
      spec: {
        image: 'docker.io/library/debian:bookworm',
        network: { egress: 'allowlist', allowedHosts: ['pypi.org', '*.pythonhosted.org'] },
      },
    },
  });
  expect(res.status).toBe(201);
}

function expectDenied(res: { status: number; json<T>(): T }, detail: string) {
  expect(res.status).toBe(403);
  expect(res.json<{ message: string }>().message).toBe(
    `admission webhook "validate.sandboxes.svc.io" denied the request: policy_violation: egress_host_not_allowed: ${detail}`,
  );
}

describe('egress rules on direct CR writes', () => {
  it("a Sandbox that widens its template's list, or steps outside allowedEgressHosts, is denied", async () => {
    await template();
    const target = await namespace('ceiling', { allowedEgressHosts: ['pypi.org'] });
    const ref = { templateRef: { name: TEMPLATE } };
    expectDenied(
      await createAs(target, 'wide', { ...ref, network: { allowedHosts: ['evil.com'] } }),
      "egress hosts [evil.com] are not in the template's allowedHosts [pypi.org, *.pythonhosted.org]",
    );
    expectDenied(
      await createAs(target, 'tpl', ref),
      'egress hosts [*.pythonhosted.org] are not in allowedEgressHosts [pypi.org]',
    );
    expectDenied(
      await createAs(target, 'default'),
      'egress: internet reaches any host; allowedEgressHosts [pypi.org] allows only none or allowlist',
    );
    const ok = await createAs(target, 'ok', { ...ref, network: { allowedHosts: ['pypi.org:443'] } });
    expect(ok.status).toBe(201);
  });
});

const createAs = (namespace: string, name: string, spec: object = {}) =>
  createSandboxAs(ns.kc, 'alice', namespace, name, spec);
