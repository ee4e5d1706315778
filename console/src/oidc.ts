// Sign-in with the deployment's OIDC issuer: the authorization-code flow with PKCE (S256).
// The verifier and state live in sessionStorage between the redirect and the return; the
// code is exchanged through the API (/console/oidc/token), so the console only ever talks
// to its own origin.
import type { Credential } from './session.ts';

export interface OidcConfig {
  authorizationEndpoint: string;
  clientId: string;
  scope: string;
}

const PENDING = 'svc.oidc.pending';

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function random(n: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(n)));
}

const redirectUri = () => `${location.origin}/`;

export async function startOidc(cfg: OidcConfig): Promise<void> {
  const verifier = random(48);
  const state = random(16);
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state }));
  const url = new URL(cfg.authorizationEndpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: cfg.clientId,
    redirect_uri: redirectUri(),
    scope: cfg.scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.toString());
}

/**
 * On the return from the issuer (`/?code=…&state=…`): checks the state, exchanges the code
 * and removes both from the address bar. Undefined when this page load is not a return.
 */
export async function finishOidc(): Promise<Credential | undefined> {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  const error = params.get('error');
  if (!code && !error) return undefined;
  history.replaceState(null, '', `/${location.hash}`);
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as {
    verifier: string;
    state: string;
  } | null;
  sessionStorage.removeItem(PENDING);
  if (error) throw new Error(`the identity provider refused the sign-in: ${error}`);
  if (!pending || params.get('state') !== pending.state)
    throw new Error('the sign-in answer does not match the request; sign in again');
  const res = await fetch('/console/oidc/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, codeVerifier: pending.verifier, redirectUri: redirectUri() }),
  });
  const body = (await res.json().catch(() => ({}))) as {
    accessToken?: string;
    expiresIn?: number;
    message?: string;
  };
  if (!res.ok || !body.accessToken) throw new Error(body.message ?? `sign-in failed (HTTP ${res.status})`);
  return {
    kind: 'token',
    value: body.accessToken,
    ...(body.expiresIn ? { expiresAt: Date.now() + body.expiresIn * 1000 } : {}),
  };
}
