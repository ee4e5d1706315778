import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, SandboxNamespaces, VERSION } from '../../core/index.ts';
import { kubeRequest, startTestApi, useNamespace, type TestApi } from '../support/index.ts';

// Issue 35, deliverable 1: the shape of an egress allowlist, checked by the CRD (what kubectl
// writes) and the API (zod), and governed by allowedEgressHosts, all on a real apiserver.
const ns = useNamespace('egshape');
let api: TestApi;
const made: string[] = [];
const templates = ['egs-allow', 'egs-open'];

const clusterTemplate = (name: string, network?: object) =>
  kubeRequest(ns.kc, {
    method: 'POST',
    path: `/apis/${GROUP}/${VERSION}/clustersandboxtemplates`,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'ClusterSandboxTemplate',
      metadata: { name },
      spec: { image: 'docker.io/library/debian:bookworm', ...(network ? { network } : {}) },
    },
  });

async function namespace(suffix: string): Promise<string> {
  const name = `${ns.name}-${suffix}`;
  await ns.core.createNamespace({
    body: { metadata: { name, labels: { [SandboxNamespaces.label]: SandboxNamespaces.enabled } } },
  });
  made.push(name);
  return name;
}

const create = (namespace: string, body: Record<string, unknown>) =>
  api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { templateRef: { name: 'egs-allow' }, ...body, namespace },
  });
const put = (target: string, body: unknown) =>
  api.call('PUT', `/governance/policies/${target}`, { key: api.keys.admin, body });

const ALLOWED = ['pypi.org', '*.pythonhosted.org', 'api.example.com:443'];

beforeAll(async () => {
  api = await startTestApi(ns);
  for (const name of templates)
    await kubeRequest(ns.kc, {
      method: 'DELETE',
      path: `/apis/${GROUP}/${VERSION}/clustersandboxtemplates/${name}`,
    });
  expect((await clusterTemplate('egs-allow', { egress: 'allowlist', allowedHosts: ALLOWED })).status).toBe(
    201,
  );
  expect((await clusterTemplate('egs-open', { egress: 'internet' })).status).toBe(201);
});
afterAll(async () => {
  await api.close();
  for (const name of made) await ns.core.deleteNamespace({ name }).catch(() => undefined);
  for (const name of templates)
    await kubeRequest(ns.kc, {
      method: 'DELETE',
      path: `/apis/${GROUP}/${VERSION}/clustersandboxtemplates/${name}`,
    });
});

describe('the CRD', () => {
  it('stores an allowlist template as written', async () => {
    const res = await kubeRequest(ns.kc, {
      method: 'GET',
      path: `/apis/${GROUP}/${VERSION}/clustersandboxtemplates/egs-allow`,
    });
    expect(res.json<{ spec: { network: unknown } }>().spec.network).toEqual({
      egress: 'allowlist',
      allowedHosts: ALLOWED,
    });
  });

  it.each(['10.0.0.1', 'PyPI.org', 'pypi.org.', 'a.*.example.com', 'example.com:65536', 'http://x.io'])(
    'refuses the entry %j',
    async (entry) => {
      const res = await clusterTemplate(`egs-bad-${Math.random().toString(36).slice(2, 8)}`, {
        egress: 'allowlist',
        allowedHosts: [entry],
      });
      expect(res.status).toBe(422);
      expect(res.body).toContain('spec.network.allowedHosts[0]');
    },
  );

  it('refuses allowedHosts without egress: allowlist', async () => {
    const res = await clusterTemplate('egs-mixed', { egress: 'internet', allowedHosts: ['pypi.org'] });
    expect(res.status).toBe(422);
    expect(res.json<{ message: string }>().message).toBe(
      'ClusterSandboxTemplate.svc.io "egs-mixed" is invalid: spec.network.allowedHosts: Invalid value: allowedHosts needs egress: allowlist',
    );
  });

  it("refuses a Sandbox's own entry that is no host name", async () => {
    const res = await kubeRequest(ns.kc, {
      method: 'POST',
      path: `/apis/${GROUP}/${VERSION}/namespaces/${ns.name}/sandboxes`,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'Sandbox',
        metadata: { name: 'ip' },
        spec: { templateRef: { name: 'egs-allow' }, network: { allowedHosts: ['[::1]:443'] } },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body).toContain('spec.network.allowedHosts[0]');
  });
});

describe('the API', () => {
  it('refuses a bad entry with a 400 naming the field', async () => {
    const res = await create(ns.name, { name: 'bad', network: { allowedHosts: ['10.0.0.1'] } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_request',
      message:
        'invalid request: network.allowedHosts[0]: must be a lower-case host name, or *. and a name, with an optional :port (never an IP address)',
      fields: [
        {
          path: 'network.allowedHosts[0]',
          message:
            'must be a lower-case host name, or *. and a name, with an optional :port (never an IP address)',
        },
      ],
    });
  });

  it("a Sandbox narrows its template's list, and is refused when it widens it", async () => {
    const narrowed = await create(ns.name, {
      name: 'narrow',
      network: { allowedHosts: ['pypi.org:443', 'files.pythonhosted.org'] },
    });
    expect(narrowed.status).toBe(201);
    expect(((await narrowed.json()) as { spec: { network: unknown } }).spec.network).toEqual({
      allowedHosts: ['pypi.org:443', 'files.pythonhosted.org'],
    });
    const wider = await create(ns.name, {
      name: 'wide',
      network: { allowedHosts: ['pypi.org', 'evil.com', 'api.example.com'] },
    });
    expect(wider.status).toBe(403);
    expect(await wider.json()).toEqual({
      error: 'policy_violation',
      violations: [
        {
          code: 'egress_host_not_allowed',
          message:
            "egress hosts [evil.com, api.example.com] are not in the template's allowedHosts [pypi.org, *.pythonhosted.org, api.example.com:443]",
        },
      ],
    });
  });

  it('a list of its own needs an allowlist template', async () => {
    const res = await create(ns.name, {
      name: 'open',
      templateRef: { name: 'egs-open' },
      network: { allowedHosts: ['pypi.org'] },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: 'policy_violation',
      violations: [
        {
          code: 'egress_host_not_allowed',
          message:
            "a Sandbox may set network.allowedHosts only with a template whose egress is allowlist; this template's is internet",
        },
      ],
    });
  });
});

describe('governance allowedEgressHosts', () => {
  it('is validated like any entry', async () => {
    const target = await namespace('badpolicy');
    const res = await put(target, { allowedEgressHosts: ['10.0.0.0'] });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'invalid_request',
      fields: [{ path: 'allowedEgressHosts[0]' }],
    });
  });

  it("is a ceiling: a template's list outside it, or egress: internet, is refused", async () => {
    const target = await namespace('ceiling');
    expect((await put(target, { allowedEgressHosts: ['pypi.org', '*.pythonhosted.org'] })).status).toBe(200);
    const outside = await create(target, { name: 'tpl' });
    expect(outside.status).toBe(403);
    expect(await outside.json()).toEqual({
      error: 'policy_violation',
      violations: [
        {
          code: 'egress_host_not_allowed',
          message:
            'egress hosts [api.example.com:443] are not in allowedEgressHosts [pypi.org, *.pythonhosted.org]',
        },
      ],
    });
    const open = await create(target, { name: 'open', templateRef: { name: 'egs-open' } });
    expect(open.status).toBe(403);
    expect(await open.json()).toEqual({
      error: 'policy_violation',
      violations: [
        {
          code: 'egress_host_not_allowed',
          message:
            'egress: internet reaches any host; allowedEgressHosts [pypi.org, *.pythonhosted.org] allows only none or allowlist',
        },
      ],
    });
    // The same template, narrowed by the Sandbox to what the ceiling allows, passes.
    const inside = await create(target, {
      name: 'inside',
      network: { allowedHosts: ['pypi.org', 'files.pythonhosted.org:443'] },
    });
    expect(inside.status).toBe(201);
  });
});
