import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { RETRY_AFTER_SECONDS, ticketKey, type Sandbox } from '../../core/index.ts';
import { SandboxdUnavailable } from '../../kube/index.ts';
import type { Caller } from '../auth/index.ts';
import type { TicketsDeps } from './deps.ts';
import { HttpError } from '../errors/index.ts';

/**
 * What a ticket is for. Each purpose signs with its own key (derived from the installation's
 * key and the purpose), so a ticket of one purpose is never valid as another: a terminal ticket
 * opens no preview, a preview ticket is no preview cookie, and a cookie is no ticket.
 */
export type TicketPurpose = 'terminal' | 'preview' | 'preview-session';

/**
 * What a ticket carries: who it is for, which sandbox (and which incarnation of it, by uid),
 * which port when it is for one, until when, and its id. It is signed, not stored: any API
 * replica can check it. Whether it may be used more than once is its user's to decide (the
 * terminal's sandboxd, the preview's ledger).
 */
interface TicketClaims {
  v: 1;
  sub: string;
  groups: string[];
  admin: boolean;
  ns: string;
  sb: string;
  uid: string;
  port?: number;
  /** Milliseconds since the epoch. */
  exp: number;
  jti: string;
}

/** A verified ticket: the caller it stands for, its id and how long it has left. */
export interface Ticket {
  caller: Caller;
  id: string;
  ttlMs: number;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  /** The sandbox it was issued for, as just read. */
  sandbox: Sandbox;
}

/** Issues a ticket for `caller` on `sandbox` (and `port`), valid `ttlMs` from the API's clock. */
export async function issueTicket(
  deps: TicketsDeps,
  purpose: TicketPurpose,
  caller: Caller,
  sandbox: Sandbox,
  opts: { ttlMs: number; port?: number },
): Promise<{ ticket: string; expiresAt: string }> {
  const { namespace = '', name = '', uid = '' } = sandbox.metadata;
  const exp = deps.clock().getTime() + opts.ttlMs;
  const claims: TicketClaims = {
    v: 1,
    sub: caller.user,
    groups: caller.groups,
    admin: caller.isAdmin,
    ns: namespace,
    sb: name,
    uid,
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    exp,
    jti: randomUUID(),
  };
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signature = await sign(deps, purpose, body);
  return { ticket: `${body}.${signature}`, expiresAt: new Date(exp).toISOString() };
}

/**
 * Checks a ticket presented for `namespace/name` (and `port`): 401 `invalid_ticket` when it
 * is malformed, forged, of another purpose, expired, or for another sandbox (or another
 * incarnation of it: the uid is signed too) or port.
 */
export async function verifyTicket(
  deps: TicketsDeps,
  purpose: TicketPurpose,
  text: string,
  target: { namespace: string; name: string; port?: number },
): Promise<Ticket> {
  const [body = '', signature = '', ...rest] = text.split('.');
  const claims = rest.length === 0 ? parseClaims(body) : undefined;
  if (!claims) throw invalidTicket('the ticket is malformed');
  // The signature first: nothing a forger wrote is used to address the cluster.
  const expected = Buffer.from(await sign(deps, purpose, body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw invalidTicket('the ticket is not valid');
  if (claims.ns !== target.namespace || claims.sb !== target.name)
    throw invalidTicket('the ticket was issued for another sandbox');
  if (claims.port !== target.port) throw invalidTicket('the ticket was issued for another port');
  const sandbox =
    deps.cache.get(target.namespace, target.name) ??
    (await deps.sandboxes.read(target.namespace, target.name));
  if (!sandbox || sandbox.metadata.uid !== claims.uid)
    throw invalidTicket('the ticket was issued for another sandbox');
  const ttlMs = claims.exp - deps.clock().getTime();
  if (ttlMs <= 0) throw invalidTicket('the ticket has expired');
  return {
    caller: { user: claims.sub, groups: claims.groups, isAdmin: claims.admin, via: 'ticket' },
    id: claims.jti,
    ttlMs,
    expiresAt: claims.exp,
    sandbox,
  };
}

export const invalidTicket = (message: string) => new HttpError(401, 'invalid_ticket', message);

/**
 * HMAC-SHA256 of the claims, keyed by the installation's ticket key for this purpose (every
 * replica derives the same from the key Secret). Never by anything of the sandbox's: its
 * sandboxd token is readable inside it, and a ticket signed with it could name any caller,
 * an admin too. The sandbox and its uid are in the signed claims, which binds a ticket to it.
 */
async function sign(deps: TicketsDeps, purpose: TicketPurpose, body: string): Promise<string> {
  const key = await deps.installationKey().catch((err: unknown) => {
    // The installation's key is not there yet (the operator creates it when it starts).
    if (err instanceof SandboxdUnavailable)
      throw new HttpError(503, 'unavailable', `tickets cannot be signed yet: ${err.message}`, {
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
      });
    throw err;
  });
  return createHmac('sha256', ticketKey(key, purpose)).update(body).digest('base64url');
}

function parseClaims(body: string): TicketClaims | undefined {
  try {
    const c = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<TicketClaims>;
    if (
      c.v === 1 &&
      typeof c.sub === 'string' &&
      Array.isArray(c.groups) &&
      c.groups.every((g) => typeof g === 'string') &&
      typeof c.admin === 'boolean' &&
      typeof c.ns === 'string' &&
      typeof c.sb === 'string' &&
      typeof c.uid === 'string' &&
      (c.port === undefined || Number.isInteger(c.port)) &&
      typeof c.exp === 'number' &&
      typeof c.jti === 'string'
    )
      return c as TicketClaims;
  } catch {
    // not base64url JSON
  }
  return undefined;
}
