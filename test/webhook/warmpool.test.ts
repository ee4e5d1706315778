// Governance of SandboxWarmPools at admission: a pool whose template or image the
// namespace's policy refuses is refused with the violation codes, create and update alike;
// quotas do not apply to pools (members count against none until claimed).
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../core/index.ts';
import { GROUP, VERSION } from '../../core/index.ts';
import { Governance, QuotaLedger } from '../../kube/index.ts';
import { warmPoolAdmission } from '../../webhook/index.ts';
import { kubeRequest, useNamespace, useWebhook } from '../support/index.ts';

const ns = useNamespace('whwp');
const webhook = useWebhook(ns, 'warmpool', (policies) => ({
  admitWarmPool: warmPoolAdmission(ns.kc, new Governance(ns.kc, policies, new QuotaLedger(ns.kc))),
}));
const namespace = (suffix: string, policy: Policy) => webhook.namespace(suffix, policy);

const pool = (namespace: string, name: string, spec: object, method = 'POST') =>
  kubeRequest(ns.kc, {
    method,
    path: `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/sandboxwarmpools${method === 'POST' ? '' : `/${name}`}`,
    ...(method === 'PATCH' ? { headers: { 'content-type': 'application/merge-patch+json' } } : {}),
    body:
      method === 'PATCH'
        ? { spec }
        : { apiVersion: `${GROUP}/${VERSION}`, kind: 'SandboxWarmPool', metadata: { name }, spec },
  });

function expectDenied(res: { status: number; json<T>(): T }, detail: string) {
  expect(res.status).toBe(403);
  expect(res.json<{ message: string }>().message).toBe(
    `admission webhook "validate.sandboxwarmpools.svc.io" denied the request: policy_violation: ${detail}`,
  );
}

describe('SandboxWarmPool admission', () => {
  it('template_not_allowed, on create and on update', async () => {
    const target = await namespace('template', { allowedTemplates: ['default'] });
    expectDenied(
      await pool(target, 'other', { templateRef: { name: 'other' }, replicas: 1 }),
      'template_not_allowed: template "other" is not in allowedTemplates [default]',
    );
    expect((await pool(target, 'ok', { templateRef: { name: 'default' }, replicas: 1 })).status).toBe(201);
    expectDenied(
      await pool(target, 'ok', { templateRef: { name: 'other' } }, 'PATCH'),
      'template_not_allowed: template "other" is not in allowedTemplates [default]',
    );
  });

  it('image_registry_not_approved and agent_image_not_approved, all at once', async () => {
    const target = await namespace('image', {
      approvedRegistries: ['ghcr.io/acme/'],
      allowedAgentImages: ['ghcr.io/acme/agents/'],
    });
    expectDenied(
      await pool(target, 'evil', {
        templateRef: { name: 'default' },
        mode: 'agent',
        image: { repository: 'docker.io/evil/x' },
      }),
      'image_registry_not_approved: image "docker.io/evil/x" is not from an approved registry [ghcr.io/acme/]; ' +
        'agent_image_not_approved: agent image "docker.io/evil/x" is not in allowedAgentImages [ghcr.io/acme/agents/]',
    );
    expect(
      (
        await pool(target, 'good', {
          templateRef: { name: 'default' },
          mode: 'agent',
          image: { repository: 'ghcr.io/acme/agents/a' },
        })
      ).status,
    ).toBe(201);
  });

  it('quotas do not apply: a pool larger than maxSandboxesTotal is admitted', async () => {
    const target = await namespace('quota', {
      maxSandboxesTotal: 0,
      maxSandboxesPerUser: 0,
      maxAgentSandboxes: 0,
    });
    expect(
      (await pool(target, 'big', { templateRef: { name: 'default' }, mode: 'agent', replicas: 5 })).status,
    ).toBe(201);
  });
});
