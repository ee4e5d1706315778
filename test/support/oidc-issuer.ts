import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

/**
 * A real OIDC issuer on 127.0.0.1: a discovery document and a JWKS over HTTP, RS256 tokens
 * signed with jose. `rotate()` replaces the signing key, as a provider's rotation does.
 */
export class OidcIssuer {
  readonly #server: Server;
  #key: SigningKey | undefined;
  #generation = 0;
  url = '';

  constructor() {
    this.#server = createServer((req, res) => {
      const body =
        req.url === '/.well-known/openid-configuration'
          ? {
              issuer: this.url,
              jwks_uri: `${this.url}/jwks`,
              id_token_signing_alg_values_supported: ['RS256'],
            }
          : req.url === '/jwks'
            ? { keys: this.#key ? [{ ...this.#key.jwk, kid: this.#key.kid, use: 'sig', alg: 'RS256' }] : [] }
            : undefined;
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body ?? { error: 'not found' }));
    });
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
