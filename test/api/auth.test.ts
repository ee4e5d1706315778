import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { OidcVerifier } from '../../api/index.ts';
import { OidcIssuer, startTestApi, useNamespace, type TestApi } from '../support/index.ts';

const ns = useNamespace('api-auth');
const issuer = new OidcIssuer();
let api: TestApi;

type Who = 'anonymous' | 'wrong key' | 'garbage bearer' | 'expired token' | 'other user' | 'owner' | 'admin';
const everyone: Who[] = [
  'anonymous',
  'wrong key',
  'garbage bearer',
  'expired token',
  'other user',
  'owner',
  'admin',
];

/** Credentials per caller: the owner and admin authenticate with OIDC, the other user with a key. */
async function credentials(who: Who): Promise<{ key?: string; token?: string }> {
  switch (who) {
    case 'anonymous':
      return {};
    case 'wrong key':
      return { key: 'svc_not-a-real-key' };
    case 'garbage bearer':
      return { token: 'garbage.not.a-jwt' };
    case 'expired token':
      return { token: await issuer.token({ sub: 'alice' }, { expiresInSec: -600 }) };
    case 'other user':
      return { key: api.keys.bob };
    case 'owner':
      return { token: await issuer.token({ sub: 'alice' }) };
    case 'admin':
      return { token: await issuer.token({ sub: 'carol', groups: ['svc-admins'] }) };
  }
}

const unauthenticated = { anonymous: 401, 'wrong key': 401, 'garbage bearer': 401, 'expired token': 401 };

/** Each endpoint: how to make what it acts on, the call, and the status expected per caller. */
const matrix: {
  name: string;
  method: string;
  path: (sandbox: string) => string;
  body?: (sandbox: string) => unknown;
  /** The row's sandbox is `mode: agent` (for the agent endpoints). */
  agent?: boolean;
  expect: Record<Who, number>;
}[] = [
  {
    name: 'list sandboxes',
    method: 'GET',
    path: () => '/sandboxes',
    expect: { ...unauthenticated, 'other user': 200, owner: 200, admin: 200 },
  },
  {
    name: 'create sandbox',
    method: 'POST',
    path: () => '/sandboxes',
    body: (s) => ({ name: `${s}-new`, templateRef: { name: 'default' } }),
    expect: { ...unauthenticated, 'other user': 201, owner: 201, admin: 201 },
  },
  {
    name: 'get sandbox',
    method: 'GET',
    path: (s) => `/sandboxes/${s}`,
    expect: { ...unauthenticated, 'other user': 403, owner: 200, admin: 200 },
  },
  {
    name: 'stop sandbox',
    method: 'POST',
    path: (s) => `/sandboxes/${s}/stop`,
    expect: { ...unauthenticated, 'other user': 403, owner: 202, admin: 202 },
  },
  {
    name: 'resume sandbox',
    method: 'POST',
    path: (s) => `/sandboxes/${s}/resume`,
    expect: { ...unauthenticated, 'other user': 403, owner: 202, admin: 202 },
  },
  {
    name: 'delete sandbox',
    method: 'DELETE',
    path: (s) => `/sandboxes/${s}`,
    expect: { ...unauthenticated, 'other user': 403, owner: 202, admin: 202 },
  },
  {
    name: 'clone sandbox (the source never ran: 400)',
    method: 'POST',
    path: (s) => `/sandboxes/${s}/clone`,
    body: () => ({}),
    expect: { ...unauthenticated, 'other user': 403, owner: 400, admin: 400 },
  },
  {
    name: 'forward a port (no operator here: the status wait times out, 504)',
    method: 'POST',
    path: (s) => `/sandboxes/${s}/ports`,
    body: () => ({ port: 8080 }),
    expect: { ...unauthenticated, 'other user': 403, owner: 504, admin: 504 },
  },
  {
    name: 'remove a port',
    method: 'DELETE',
    path: (s) => `/sandboxes/${s}/ports/8080`,
    expect: { ...unauthenticated, 'other user': 403, owner: 204, admin: 204 },
  },
  {
    name: 'preview (not running: 409)',
    method: 'GET',
    path: (s) => `/sandboxes/${s}/preview/8080/`,
    expect: { ...unauthenticated, 'other user': 403, owner: 409, admin: 409 },
  },
  {
    name: 'configure (not running: 409)',
    method: 'POST',
    path: (s) => `/sandboxes/${s}/configure`,
    body: () => ({ entrypoint: ['true'] }),
    agent: true,
    expect: { ...unauthenticated, 'other user': 403, owner: 409, admin: 409 },
  },
  {
    name: 'invoke (not running: 409)',
    method: 'POST',
    path: (s) => `/sandboxes/${s}/invoke`,
    body: () => 'stdin',
    agent: true,
    expect: { ...unauthenticated, 'other user': 403, owner: 409, admin: 409 },
  },
  {
    name: 'cancel an invoke (no sandboxd yet: 503)',
    method: 'POST',
    path: (s) => `/sandboxes/${s}/invoke/cancel`,
    body: () => ({ invokeId: 'inv-1' }),
    agent: true,
    expect: { ...unauthenticated, 'other user': 403, owner: 503, admin: 503 },
  },
  {
    name: 'audit events',
    method: 'GET',
    path: () => '/audit/events',
    expect: { ...unauthenticated, 'other user': 200, owner: 200, admin: 200 },
  },
  {
    name: 'OpenAPI document',
    method: 'GET',
    path: () => '/openapi.json',
    expect: { ...unauthenticated, 'other user': 200, owner: 200, admin: 200 },
  },
  {
    name: 'read governance policies',
    method: 'GET',
    path: () => '/governance/policies',
    expect: { ...unauthenticated, 'other user': 403, owner: 403, admin: 200 },
  },
  {
    name: 'set a namespace policy',
    method: 'PUT',
    path: () => `/governance/policies/${ns.name}`,
    body: () => ({}),
    expect: { ...unauthenticated, 'other user': 403, owner: 403, admin: 200 },
  },
  {
    name: 'effective policy',
    method: 'GET',
    path: () => '/governance/effective',
    expect: { ...unauthenticated, 'other user': 200, owner: 200, admin: 200 },
  },
  {
    name: 'list API keys',
    method: 'GET',
    path: () => '/apikeys',
    expect: { ...unauthenticated, 'other user': 403, owner: 403, admin: 200 },
  },
  {
    name: 'create API key',
    method: 'POST',
    path: () => '/apikeys',
    body: () => ({ user: 'dave' }),
    expect: { ...unauthenticated, 'other user': 403, owner: 403, admin: 201 },
  },
];

beforeAll(async () => {
  await issuer.start();
  api = await startTestApi(ns, {
    oidc: { issuer: issuer.url, adminGroup: 'svc-admins' },
    devAuth: false,
    statusWaitMs: 500,
  });
});
afterAll(async () => {
  await api.close();
  await issuer.stop();
});

const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');

describe('authorization matrix', () => {
  const rows = matrix.flatMap((e, row) =>
    everyone.map((who, col) => ({ ...e, who, status: e.expect[who], sandbox: `s${row}-${col}` })),
  );
  it.each(rows)('$name as $who → $status', async ({ method, path, body, agent, who, status, sandbox }) => {
    // Each row acts on a sandbox of its own, owned by alice, so rows cannot disturb each other.
    const owner = await credentials('owner');
    const made = await api.call('POST', '/sandboxes', {
      ...owner,
      body: { name: sandbox, templateRef: { name: 'default' }, ...(agent ? { mode: 'agent' } : {}) },
    });
    expect(made.status).toBe(201);
    const res = await api.call(method, path(sandbox), { ...(await credentials(who)), body: body?.(sandbox) });
    expect(res.status).toBe(status);
    if (res.status === 401) {
      expect(await res.json()).toMatchObject({ error: 'unauthenticated' });
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });
});

describe('OIDC', () => {
  it('takes the owner from the token subject', async () => {
    const res = await api.call('POST', '/sandboxes', {
      token: await issuer.token({ sub: 'erin' }),
      body: { name: 'erin-1', templateRef: { name: 'default' } },
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { spec: { createdBy: string } }).spec.createdBy).toBe('erin');
  });

  it('refuses a token for another audience', async () => {
    const token = await issuer.token({ sub: 'alice', aud: 'someone-else' });
    expect((await api.call('GET', '/sandboxes', { token })).status).toBe(401);
  });

  it('refuses an HS256 token signed with any secret, and an unsigned one (alg none)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: 'alice', iss: issuer.url, aud: 'svc', iat: now - 5, exp: now + 300 };
    // The kid of the issuer's current key: a verifier that trusted the header's alg would
    // take the public key's bytes as the HMAC secret (the classic algorithm confusion).
    const jwks = (await (await fetch(`${issuer.url}/jwks`)).json()) as { keys: { kid: string }[] };
    const kid = jwks.keys[0]!.kid;
    const hs256 = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid })
      .sign(new TextEncoder().encode('a-shared-secret-of-at-least-32-bytes!'));
    const unsigned = `${encode({ alg: 'none', kid })}.${encode(claims)}.`;
    for (const token of [hs256, unsigned]) {
      const res = await api.call('GET', '/sandboxes', { token });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'unauthenticated' });
    }
  });

  it('verifies only the algorithms of its allow-list (auth.oidc.algorithms)', async () => {
    const token = await issuer.token({ sub: 'alice' }); // RS256
    const pinned = new OidcVerifier({ issuer: issuer.url, audience: 'svc', algorithms: ['ES256'] });
    const refused = await pinned.verify(token);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/"alg" \(Algorithm\) Header Parameter value not allowed/);
    const byDefault = new OidcVerifier({ issuer: issuer.url, audience: 'svc' });
    expect(await byDefault.verify(token)).toEqual({ user: 'alice', groups: [] });
  });

  it('follows a key rotation at the issuer', async () => {
    const before = await issuer.token({ sub: 'alice' });
    expect((await api.call('GET', '/sandboxes', { token: before })).status).toBe(200);
    await issuer.rotate();
    const after = await issuer.token({ sub: 'alice' });
    expect((await api.call('GET', '/sandboxes', { token: after })).status).toBe(200);
    // The old key is gone from the JWKS, so tokens it signed no longer verify.
    expect((await api.call('GET', '/sandboxes', { token: before })).status).toBe(401);
  });
});

describe('/metrics on the API port', () => {
  // It counts every tenant's calls (Prometheus scrapes `--metrics-listen` instead).
  const scrape = (headers: Record<string, string>) => api.app.request('/metrics', { headers });
  it('answers 401 to an anonymous caller and to a wrong key', async () => {
    for (const headers of [{}, { 'x-api-key': 'svc_not-a-real-key' }] as Record<string, string>[]) {
      const res = await scrape(headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'unauthenticated' });
    }
  });
  it('answers 403 to a user who is not an admin', async () => {
    const res = await scrape({ 'x-api-key': api.keys.alice });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'forbidden', message: 'metrics are admin only' });
  });
  it("serves an admin Prometheus' text", async () => {
    const res = await scrape({ 'x-api-key': api.keys.admin });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await res.text()).toMatch(/^# HELP svc_/m);
  });
});

describe('admin endpoints fail closed', () => {
  it('answer 401 even to an admin key when there is neither an OIDC issuer nor devAuth', async () => {
    const closed = await startTestApi(ns, { devAuth: false });
    try {
      const res = await closed.call('GET', '/apikeys', { key: closed.keys.admin });
      expect(res.status).toBe(401);
      expect(
        (await closed.app.request('/metrics', { headers: { 'x-api-key': closed.keys.admin } })).status,
      ).toBe(401);
    } finally {
      await closed.close();
    }
  });
});
