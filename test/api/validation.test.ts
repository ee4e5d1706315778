import { randomBytes } from 'node:crypto';
import { CustomObjectsApi, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP, VERSION } from '../../core/index.ts';
import { kubeHttpError } from '../../api/cluster/index.ts';
import { startTestApi, useNamespace, type TestApi } from '../support/index.ts';

// The fuzzer's reproducers (issue 17): inputs that are not Kubernetes names used to reach
// the apiserver and come back as 500s. Each must now be a 400 naming the field (or a 404
// for a namespace that does not exist), answered before any cluster call.
const ns = useNamespace('api-val');
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi(ns);
});
afterAll(async () => api.close());

const invalid = (field: string, message: string) => ({
  error: 'invalid_request',
  message: `invalid request: ${field}: ${message}`,
  fields: [{ path: field, message }],
});
const LABEL = 'must be an RFC 1123 label: lower-case letters, digits and -';
const NS_LABEL = 'must be an RFC 1123 label';
const OBJECT_NAME =
  'must be a Kubernetes object name (RFC 1123 subdomain): lower-case letters, digits, - and .';
const template = { name: 'default' };

describe('the fuzzer’s reproducers', () => {
  const cases: [string, string, object | undefined, 'alice' | 'admin', object][] = [
    ['GET', '/sandboxes/%25w%26Y[X', undefined, 'alice', invalid('id', LABEL)],
    ['GET', '/sandboxes/x?namespace=%7Dq%2F%7B', undefined, 'alice', invalid('namespace', NS_LABEL)],
    ['GET', '/sandboxes?namespace=%7Dq/%7B', undefined, 'alice', invalid('namespace', NS_LABEL)],
    ['GET', '/sandboxes/a%0D%0Ab', undefined, 'alice', invalid('id', LABEL)],
    ['DELETE', '/sandboxes/a%2F..%2Fb', undefined, 'alice', invalid('id', LABEL)],
    ['POST', '/sandboxes/%00/stop', undefined, 'alice', invalid('id', LABEL)],
    ['DELETE', '/sandboxes/box/ports/8080x', undefined, 'alice', invalid('port', 'must be a port number')],
    [
      'POST',
      '/sandboxes',
      { name: 'ctl', templateRef: { name: 'de\u0001fault' } },
      'alice',
      invalid('templateRef.name', OBJECT_NAME),
    ],
    [
      'POST',
      '/sandboxes',
      { name: 'ns', namespace: 'a=b', templateRef: template },
      'alice',
      invalid('namespace', NS_LABEL),
    ],
    ['GET', '/audit/events?sandbox=a%2Cinvolved.name%3Db', undefined, 'alice', invalid('sandbox', LABEL)],
    [
      'GET',
      '/audit/events?reason=a%3Db',
      undefined,
      'alice',
      invalid('reason', 'must be an event reason such as InvokeCompleted'),
    ],
    ['GET', '/governance/effective?namespace=%25', undefined, 'alice', invalid('namespace', NS_LABEL)],
    ['PUT', '/governance/policies/a%2Fb', {}, 'admin', invalid('namespace', NS_LABEL)],
    ['DELETE', '/apikeys/key%3D1', undefined, 'admin', invalid('keyId', 'is not an API key id (hex digits)')],
  ];
  it.each(cases)('%s %s → 400 naming the field', async (method, path, body, who, expected) => {
    const res = await api.call(method, path, { key: api.keys[who], body });
    expect(await res.json()).toEqual(expected);
    expect(res.status).toBe(400);
  });

  it("spec.env may not set sandboxd's own variables (SANDBOXD_*): 400 naming the field", async () => {
    const reserved = (name: string) =>
      `${name} is reserved: variables starting with SANDBOXD_ are settings of sandboxd, which the sandbox must not override`;
    const env = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: { name: 'envtok', templateRef: template, env: [{ name: 'SANDBOXD_TOKEN', value: 'mine' }] },
    });
    expect(await env.json()).toEqual(invalid('env[0].name', reserved('SANDBOXD_TOKEN')));
    expect(env.status).toBe(400);
    const credentials = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: {
        name: 'envcred',
        templateRef: template,
        credentials: { env: [{ name: 'SANDBOXD_TOKEN_FILE', secretName: 's', key: 'k' }] },
      },
    });
    expect(await credentials.json()).toEqual(
      invalid('credentials.env[0].name', reserved('SANDBOXD_TOKEN_FILE')),
    );
    expect(credentials.status).toBe(400);
    expect(await api.deps.sandboxes.read(ns.name, 'envtok')).toBeUndefined();
  });

  it('a create in a namespace that does not exist → 404 naming it', async () => {
    const missing = `nope-${randomBytes(3).toString('hex')}`;
    const res = await api.call('POST', `/sandboxes?namespace=${missing}`, {
      key: api.keys.alice,
      body: { name: 'lost', templateRef: template },
    });
    expect(await res.json()).toEqual({ error: 'not_found', message: `namespaces "${missing}" not found` });
    expect(res.status).toBe(404);
  });

  it('reads in a namespace that does not exist → 404 naming it (list, audit); an existing empty one → 200', async () => {
    const missing = `nope-${randomBytes(3).toString('hex')}`;
    for (const path of [`/sandboxes?namespace=${missing}`, `/audit/events?namespace=${missing}`]) {
      const res = await api.call('GET', path, { key: api.keys.alice });
      expect(await res.json()).toEqual({ error: 'not_found', message: `namespaces "${missing}" not found` });
      expect(res.status).toBe(404);
    }
    const empty = await api.call('GET', `/sandboxes?namespace=default`, { key: api.keys.bob });
    expect(empty.status).toBe(200);
  });

  it('validation comes after authentication: a bad id without a key is 401', async () => {
    expect((await api.call('GET', '/sandboxes/%25w%26Y[X')).status).toBe(401);
  });
});

describe('apiserver refusals, mapped', () => {
  const custom = () => ns.kc.makeApiClient(CustomObjectsApi);
  const body = (name: string) => ({
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Sandbox',
    metadata: { name },
    spec: { templateRef: template },
  });

  it('403 from the apiserver names what the service may not do', async () => {
    const err: unknown = await custom()
      .createNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace: ns.name, plural: 'sandboxes', body: body('denied') },
        setHeaderOptions('Impersonate-User', 'nobody'),
      )
      .catch((e: unknown) => e);
    const mapped = kubeHttpError(err, 'sandbox denied');
    expect([mapped?.status, mapped?.code]).toEqual([403, 'forbidden']);
    expect(mapped?.message).toBe(
      `sandbox denied: the service is not allowed to do this in the cluster: sandboxes.svc.io is forbidden: User "nobody" cannot create resource "sandboxes" in API group "svc.io" in the namespace "${ns.name}"`,
    );
  });

  it('422 from the apiserver (a CRD rule) is a 400 with its causes', async () => {
    const long = 'x'.repeat(60);
    const err: unknown = await custom()
      .createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: ns.name,
        plural: 'sandboxes',
        body: body(long),
      })
      .catch((e: unknown) => e);
    const mapped = kubeHttpError(err);
    expect([mapped?.status, mapped?.code]).toEqual([400, 'invalid_request']);
    expect(mapped?.message).toContain('metadata.name must be at most 53 characters');
  });
});
