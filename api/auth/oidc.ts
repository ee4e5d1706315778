import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { z } from 'zod';

export interface OidcOptions {
  issuer: string;
  audience: string;
  /** Claim naming the user (default `sub`; `email` or `preferred_username` are common). */
  userClaim?: string;
  groupsClaim?: string;
  /** Allowed clock skew between this server and the issuer. */
  clockToleranceSec?: number;
  /** Least time between two JWKS fetches triggered by unknown key ids (jose's default 30 s). */
  jwksCooldownMs?: number;
  /** The signature algorithms a token may use (default `OIDC_ALGORITHMS`): asymmetric only. */
  algorithms?: readonly OidcAlgorithm[];
}

/**
 * The algorithms an issuer signs with through its JWKS: asymmetric ones only. `none` and the
 * HMAC ones (HS*) are never among them: an HMAC key is a shared secret no JWKS may publish,
 * and a verifier that took the header's word for one would take a public key for the secret.
 */
export const OIDC_ALGORITHM_NAMES = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;
export type OidcAlgorithm = (typeof OIDC_ALGORITHM_NAMES)[number];

/** The allow-list when none is configured: what common issuers sign with. */
export const OIDC_ALGORITHMS: readonly OidcAlgorithm[] = ['RS256', 'ES256', 'PS256', 'EdDSA'];

const Discovery = z.object({ issuer: z.string(), jwks_uri: z.url() });

/**
 * Verifies OIDC access tokens against the issuer's discovery document and JWKS. jose's
 * remote key set caches the keys and refetches when a token names an unknown `kid`, which
 * is how a key rotation at the issuer is picked up without a restart.
 */
export class OidcVerifier {
  readonly #opts: OidcOptions;
  #keys: ReturnType<typeof createRemoteJWKSet> | undefined;

  constructor(opts: OidcOptions) {
    this.#opts = opts;
  }

  /** The token's claims, or an Error saying why it was refused. */
  async verify(
    token: string,
  ): Promise<{ user: string; groups: string[]; name?: string; email?: string } | Error> {
    try {
      const { payload } = await jwtVerify(token, await this.#keySet(), {
        issuer: this.#opts.issuer,
        audience: this.#opts.audience,
        clockTolerance: this.#opts.clockToleranceSec ?? 30,
        // Pinned, not read from the token's header: jose refuses any other `alg` before it
        // looks for a key.
        algorithms: [...(this.#opts.algorithms ?? OIDC_ALGORITHMS)],
      });
      const user = claim(payload, this.#opts.userClaim ?? 'sub');
      if (typeof user !== 'string' || user === '') return new Error('token has no user claim');
      const groups = claim(payload, this.#opts.groupsClaim ?? 'groups');
      // The display name and email, for `GET /user/me` only: never an identity.
      const name = claim(payload, 'name');
      const email = claim(payload, 'email');
      return {
        user,
        groups: Array.isArray(groups) ? groups.filter((g) => typeof g === 'string') : [],
        ...(typeof name === 'string' ? { name } : {}),
        ...(typeof email === 'string' ? { email } : {}),
      };
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  }

  async #keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (this.#keys) return this.#keys;
    const url = `${this.#opts.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`OIDC discovery at ${url} answered ${res.status}`);
    const discovery = Discovery.parse(await res.json());
    this.#keys = createRemoteJWKSet(new URL(discovery.jwks_uri), {
      cooldownDuration: this.#opts.jwksCooldownMs ?? 30_000,
    });
    return this.#keys;
  }
}

function claim(payload: JWTPayload, name: string): unknown {
  return payload[name];
}
