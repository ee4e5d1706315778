import { describe, expect, it } from 'vitest';
import type { Policy } from '../../core/index.ts';
import { Governance, QuotaLedger } from '../../kube/index.ts';
import { governanceAdmission } from '../../webhook/index.ts';
import { kubeRequest, useClusterTemplate, useNamespace, useWebhook } from '../support/index.ts';

// Governance of kubectl-written Sandboxes (issue 32): a server-side dry run reserves no
// quota, templates are told apart by kind, registries match at a `/`, and the limits judged
// are the ones the Pod gets. The webhook as `svc webhook` runs it, registered with the real
// apiserver; each case has a namespace of its own.
const ns = useNamespace('whlim');
const template = useClusterTemplate('whlim', ns, { resources: { limits: { cpu: '2', memory: '4Gi' } } });
const webhook = useWebhook(ns, 'limits', (policies) => ({
  admitCreate: governanceAdmission(new Governance(ns.kc, policies, new QuotaLedger(ns.kc))),
}));
const namespace = (suffix: string, policy: Policy) =>
  webhook.namespace(suffix, policy, { writers: ['alice'], verbs: ['create', 'get', 'list'] });

/** alice's `kubectl create` of a Sandbox; `query` such as `?dryRun=All` for a server-side dry run. */
const createAs = (namespace: string, name: string, spec: object, query = '') =>
  kubeRequest(ns.kc, {
    method: 'POST',
    path: `/apis/svc.io/v1alpha1/namespaces/${namespace}/sandboxes${query}`,
    headers: { 'impersonate-user': 'alice' },
    body: {
      apiVersion: 'svc.io/v1alpha1',
      kind: 'Sandbox',
      metadata: { name },
      spec: { templateRef: { name: template }, stopped: true, ...spec },
    },
  });

const denial = (code: string, detail: string) =>
  `admission webhook "validate.sandboxes.svc.io" denied the request: policy_violation: ${code}: ${detail}`;

describe('governance of kubectl Sandboxes', () => {
  it('a server-side dry run reserves nothing: the real create that follows has the slot', async () => {
    const target = await namespace('dry', { maxSandboxesPerUser: 1 });
    const dry = await createAs(target, 'one', {}, '?dryRun=All');
    expect(dry.status, dry.body).toBe(201);
    const ledger = await ns.core
      .readNamespacedConfigMap({ name: 'svc-quota-ledger', namespace: target })
      .catch(() => undefined);
    expect(ledger?.data ?? {}).toEqual({});
    const real = await createAs(target, 'two', {});
    expect(real.status, real.body).toBe(201);
    // The dry run was judged all the same: over the quota now, it is denied.
    const over = await createAs(target, 'three', {}, '?dryRun=All');
    expect(over.status).toBe(403);
    expect(over.json<{ message: string }>().message).toBe(
      denial('user_quota_exceeded', 'you have 1 sandboxes in the namespace; maxSandboxesPerUser is 1'),
    );
  });

  it('`limits: {}` is judged with the template limits and `cpu: 64` is denied', async () => {
    const target = await namespace('cpu', { maxCpu: '2', maxMemory: '4Gi' });
    const kept = await createAs(target, 'kept', { resources: { limits: {} } });
    expect(kept.status, kept.body).toBe(201);
    const big = await createAs(target, 'big', { resources: { limits: { cpu: '64' } } });
    expect(big.status).toBe(403);
    expect(big.json<{ message: string }>().message).toBe(
      denial('cpu_limit_exceeded', 'CPU limit 64 is above maxCpu 2'),
    );
  });

  it('a SandboxTemplate does not pass for the ClusterSandboxTemplate of its name', async () => {
    const target = await namespace('kind', { allowedTemplates: [template] });
    const res = await createAs(target, 'x', { templateRef: { kind: 'SandboxTemplate', name: template } });
    expect(res.status).toBe(403);
    expect(res.json<{ message: string }>().message).toBe(
      denial(
        'template_not_allowed',
        `template "SandboxTemplate/${template}" is not in allowedTemplates [${template}]`,
      ),
    );
    expect((await createAs(target, 'y', {})).status).toBe(201);
  });

  it('approvedRegistries match at a `/`: ghcr.io/acme admits ghcr.io/acme/x, not ghcr.io/acme-evil/x', async () => {
    const target = await namespace('registry', { approvedRegistries: ['ghcr.io/acme'] });
    const evil = await createAs(target, 'evil', { image: { repository: 'ghcr.io/acme-evil/x' } });
    expect(evil.status).toBe(403);
    expect(evil.json<{ message: string }>().message).toBe(
      denial(
        'image_registry_not_approved',
        'image "ghcr.io/acme-evil/x" is not from an approved registry [ghcr.io/acme]',
      ),
    );
    expect((await createAs(target, 'ok', { image: { repository: 'ghcr.io/acme/x:1' } })).status).toBe(201);
  });
});
