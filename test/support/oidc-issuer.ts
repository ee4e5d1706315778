import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

interface PendingCode {
  challenge: string;
  redirectUri: string;
  clientId: string;
  user: { sub: string; groups: string[] };
}

/**
 * A real OIDC issuer on 127.0.0.1: a discovery document and a JWKS over HTTP, RS256 tokens
 * signed with jose. `rotate()` replaces the signing key, as a provider's rotation does.
 * It also runs the authorization-code flow with PKCE (S256) for the browser console: its
 * authorization endpoint signs in `signInAs` at once (no login page) and redirects back with
 * a one-use code; its token endpoint checks the code verifier before it issues a token.
 */
export class OidcIssuer {
  readonly #server: Server;
  #key: SigningKey | undefined;
  #generation = 0;
  readonly #codes = new Map<string, PendingCode>();
  url = '';
  /** Who the authorization endpoint signs in. */
  signInAs: { sub: string; groups: string[] } = { sub: 'carol', groups: [] };
  /** Every token request's outcome, for tests to assert on (`issued` or the OAuth error). */
  readonly tokenRequests: string[] = [];

  constructor() {
    this.#server = createServer((req, res) => {
      if (req.url?.startsWith('/authorize?')) return this.#authorize(req, res);
      if (req.url === '/token' && req.method === 'POST') return void this.#tokenEndpoint(req, res);
      const body =
        req.url === '/.well-known/openid-configuration'
          ? {
              issuer: this.url,
              jwks_uri: `${this.url}/jwks`,
              authorization_endpoint: `${this.url}/authorize`,
              token_endpoint: `${this.url}/token`,
              id_token_signing_alg_values_supported: ['RS256'],
            }
          : req.url === '/jwks'
            ? { keys: this.#key ? [{ ...this.#key.jwk, kid: this.#key.kid, use: 'sig', alg: 'RS256' }] : [] }
            : undefined;
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body ?? { error: 'not found' }));
    });
  }

  #authorize(req: IncomingMessage, res: ServerResponse): void {
    const q = new URL(req.url!, this.url).searchParams;
    const redirect = q.get('redirect_uri');
    const challenge = q.get('code_challenge');
    if (
      q.get('response_type') !== 'code' ||
      !redirect ||
      !challenge ||
      q.get('code_challenge_method') !== 'S256'
    ) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('bad authorization request');
      return;
    }
    const code = randomBytes(16).toString('hex');
    this.#codes.set(code, {
      challenge,
      redirectUri: redirect,
      clientId: q.get('client_id') ?? '',
      user: this.signInAs,
    });
    const back = new URL(redirect);
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.get('state') ?? '');
    res.writeHead(302, { location: back.toString() }).end();
  }

  async #tokenEndpoint(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString());
    const code = form.get('code') ?? '';
    const pending = this.#codes.get(code);
    this.#codes.delete(code);
    const verifier = form.get('code_verifier') ?? '';
    const error = !pending
      ? 'invalid_grant'
      : form.get('grant_type') !== 'authorization_code' ||
          form.get('redirect_uri') !== pending.redirectUri ||
          form.get('client_id') !== pending.clientId
        ? 'invalid_request'
        : createHash('sha256').update(verifier).digest('base64url') !== pending.challenge
          ? 'invalid_grant'
          : undefined;
    this.tokenRequests.push(error ?? 'issued');
    if (error || !pending) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
      return;
    }
    const token = await this.token(pending.user);
    res
      .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 300 }));
  }

  async start(): Promise<this> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    this.url = `http://127.0.0.1:${address.port}`;
    await this.rotate();
    return this;
  }

  async rotate(): Promise<void> {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    this.#key = { kid: `key-${++this.#generation}`, privateKey, jwk: await exportJWK(publicKey) };
  }

  /** A signed access token; `expiresInSec` may be negative for an expired one. */
  async token(
    claims: { sub: string; groups?: string[]; aud?: string },
    opts: { expiresInSec?: number } = {},
  ): Promise<string> {
    const key = this.#key!;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ groups: claims.groups ?? [] })
      .setProtectedHeader({ alg: 'RS256', kid: key.kid })
      .setIssuer(this.url)
      .setSubject(claims.sub)
      .setAudience(claims.aud ?? 'svc')
      .setIssuedAt(now - 5)
      .setExpirationTime(now + (opts.expiresInSec ?? 300))
      .sign(key.privateKey);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
