// Signing in to the console with an OIDC issuer: the authorization-code flow with PKCE, in
// chromium against a real issuer (test/support/oidc-issuer.ts) and the API, whose
// /console/oidc/token exchanges the code so that the page only ever talks to its own origin.
import { createHash, randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcIssuer, startTestApi, useNamespace, type TestApi } from '../support/index.ts';

const root = resolve(import.meta.dirname, '../..');
const ns = useNamespace('console-oidc');
let issuer: OidcIssuer;
let api: TestApi;
let base: string;
let browser: Browser;

beforeAll(async () => {
  issuer = await new OidcIssuer().start();
  issuer.signInAs = { sub: 'carol', groups: [] };
  api = await startTestApi(ns, {
    oidc: { issuer: issuer.url },
    console: {
      dir: join(root, 'dist/console'),
      oidc: { issuer: issuer.url, clientId: 'svc', scope: 'openid' },
    },
  });
  base = await api.serve();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await issuer?.stop();
});

describe('OIDC sign-in (authorization code + PKCE)', () => {
  it('tells the console where to sign in', async () => {
    const res = await fetch(`${base}/console/config.json`);
    expect(await res.json()).toEqual({
      oidc: { authorizationEndpoint: `${issuer.url}/authorize`, clientId: 'svc', scope: 'openid' },
    });
  });

  it('signs carol in from the browser and shows her sandboxes; the code leaves the address bar', async () => {
    const token = await issuer.token({ sub: 'carol' });
    const made = await api.call('POST', '/sandboxes', {
      token,
      body: { name: 'carols', templateRef: { name: 'default' } },
    });
    expect(made.status).toBe(201);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/`);
    await page.getByRole('button', { name: 'Sign in with single sign-on' }).click();
    await page.getByRole('heading', { name: 'Sandboxes', level: 1 }).waitFor({ timeout: 20_000 });
    await page.locator('tr[data-sandbox="carols"]').waitFor({ timeout: 20_000 });
    expect(page.url()).toBe(`${base}/`);
    const stored = JSON.parse(
      (await page.evaluate<string>(`sessionStorage.getItem('svc.credential')`)) ?? '{}',
    ) as {
      kind: string;
    };
    expect(stored.kind).toBe('token');
    expect(await page.evaluate<string | null>(`sessionStorage.getItem('svc.oidc.pending')`)).toBeNull();
    expect(issuer.tokenRequests.at(-1)).toBe('issued');
    await context.close();
  });

  it('refuses a wrong code verifier, and a code used twice (401)', async () => {
    const verifier = randomBytes(48).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const redirectUri = `${base}/`;
    const authorize = await fetch(
      `${issuer.url}/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: 'svc',
        redirect_uri: redirectUri,
        state: 's',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }).toString()}`,
      { redirect: 'manual' },
    );
    expect(authorize.status).toBe(302);
    const code = new URL(authorize.headers.get('location')!).searchParams.get('code')!;
    const exchange = (codeVerifier: string) =>
      fetch(`${base}/console/oidc/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, codeVerifier, redirectUri }),
      });
    const wrong = await exchange(randomBytes(48).toString('base64url'));
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({
      error: 'unauthenticated',
      message: 'the OIDC issuer refused the sign-in: invalid_grant',
    });
    // The issuer spent the code on the failed attempt: the right verifier is now too late.
    const again = await exchange(verifier);
    expect(again.status).toBe(401);
    const malformed = await fetch(`${base}/console/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, codeVerifier: 'short', redirectUri }),
    });
    expect(malformed.status).toBe(400);
  });

  it('refuses a body over 64 KiB with 413 before reading it, declared or chunked (no credentials needed)', async () => {
    const big = JSON.stringify({ code: 'x'.repeat(2 * 1024 * 1024), codeVerifier: 'v', redirectUri: base });
    const declared = await fetch(`${base}/console/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: big,
    });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({
      error: 'payload_too_large',
      message: 'the request body is larger than 65536 bytes',
    });
    const bytes = new TextEncoder().encode(big);
    const chunked = await fetch(`${base}/console/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 64 * 1024)
            controller.enqueue(bytes.slice(at, at + 64 * 1024));
          controller.close();
        },
      }),
      duplex: 'half',
    });
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toMatchObject({ error: 'payload_too_large' });
    // The same bound on every other path outside /api/v1, whatever its method.
    const health = await fetch(`${base}/healthz`, { method: 'POST', body: big });
    expect(health.status).toBe(413);
  });
});
