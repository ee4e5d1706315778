import type { MiddlewareHandler } from 'hono';
import { forbidden, unauthenticated } from '../errors/index.ts';
import type { ApiKeyStore } from './api-keys.ts';
import type { Caller } from './caller.ts';
import type { OidcVerifier } from './oidc.ts';

export interface AuthOptions {
  keys: ApiKeyStore;
  oidc?: OidcVerifier;
  /** `auth.oidc.adminGroup`: members are admins. */
  adminGroup?: string;
  /** `auth.devAuth`: admin-flagged API keys are honoured without an OIDC issuer. */
  devAuth: boolean;
}

/**
 * Whether this deployment can have admins at all: it needs an OIDC issuer or devAuth.
 * Without either, admin endpoints refuse everyone with 401 (fail-closed).
 */
export const adminCapable = (opts: Pick<AuthOptions, 'oidc' | 'devAuth'>) =>
  opts.oidc !== undefined || opts.devAuth;

/**
 * Admin only, after `authenticate`: 401 when the deployment cannot have admins (no OIDC
 * issuer, no devAuth: fail-closed), 403 for a caller who is not one.
 */
export function requireAdmin(
  opts: Pick<AuthOptions, 'oidc' | 'devAuth'>,
  refusal: string,
): MiddlewareHandler {
  return async function adminOnly(c, next) {
    if (!adminCapable(opts))
      throw unauthenticated('admin endpoints are disabled: no OIDC issuer and no devAuth');
    if (!c.var.caller.isAdmin) throw forbidden(refusal);
    await next();
  };
}

/**
 * One middleware for both credential forms: `X-API-Key` and `Authorization: Bearer`.
 * Sets `c.var.caller`; answers 401 to anyone it cannot identify.
 */
export function authenticate(opts: AuthOptions): MiddlewareHandler {
  const capable = adminCapable(opts);
  return async function auth(c, next) {
    const caller = await identify(c.req.header('x-api-key'), c.req.header('authorization'));
    c.set('caller', caller);
    await next();
  };

  async function identify(apiKey: string | undefined, authorization: string | undefined): Promise<Caller> {
    if (apiKey !== undefined) {
      const record = await opts.keys.lookup(apiKey);
      if (!record) throw unauthenticated('invalid API key');
      return { user: record.user, groups: record.groups, isAdmin: capable && record.admin, via: 'api-key' };
    }
    const match = authorization?.match(/^Bearer\s+(\S+)$/i);
    if (match?.[1]) {
      if (!opts.oidc) throw unauthenticated('bearer tokens are not accepted: no OIDC issuer is configured');
      const verified = await opts.oidc.verify(match[1]);
      if (verified instanceof Error) throw unauthenticated(`invalid bearer token: ${verified.message}`);
      const isAdmin = opts.adminGroup !== undefined && verified.groups.includes(opts.adminGroup);
      return { ...verified, isAdmin, via: 'oidc' };
    }
    throw unauthenticated();
  }
}
