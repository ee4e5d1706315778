import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Sandbox } from '../../core/index.ts';
import type { Caller } from '../auth/index.ts';
import type { ApiDeps } from '../deps.ts';
import { HttpError } from '../errors/index.ts';

/** How long a ticket may wait for its WebSocket upgrade. */
export const TICKET_TTL_MS = 30_000;

/**
 * What a ticket carries: who it is for, which sandbox (and which incarnation of it, by uid),
 * until when, and its id. It is signed, not stored: any API replica can check it. That it
 * is used only once is recorded by the sandbox's sandboxd, the one place every replica
 * reaches for that sandbox (sandboxd/terminal.go).
 */
interface TicketClaims {
  v: 1;
  sub: string;
  groups: string[];
  admin: boolean;
  ns: string;
  sb: string;
  uid: string;
  /** Milliseconds since the epoch. */
  exp: number;
  jti: string;
}

/** A verified ticket: the caller it stands for, its id and how long it has left. */
export interface Ticket {
  caller: Caller;
  id: string;
  ttlMs: number;
}

/** Issues a ticket for `caller` on `sandbox`, valid `TICKET_TTL_MS` from the API's clock. */
export async function issueTicket(
  deps: ApiDeps,
  caller: Caller,
  sandbox: Sandbox,
): Promise<{ ticket: string; expiresAt: string }> {
  const { namespace = '', name = '', uid = '' } = sandbox.metadata;
  const exp = deps.clock().getTime() + TICKET_TTL_MS;
  const claims: TicketClaims = {
    v: 1,
    sub: caller.user,
    groups: caller.groups,
    admin: caller.isAdmin,
    ns: namespace,
    sb: name,
    uid,
    exp,
    jti: randomUUID(),
  };
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signature = await sign(deps, claims, body);
  return { ticket: `${body}.${signature}`, expiresAt: new Date(exp).toISOString() };
}

/**
 * Checks a ticket presented for the terminal of `namespace/name`: 401 `invalid_ticket` when
 * it is malformed, forged, expired, or for another sandbox (or another incarnation of it: the
 * uid is signed too). Whether it was used already is sandboxd's to say.
 */
export async function verifyTicket(
  deps: ApiDeps,
  text: string,
  namespace: string,
  name: string,
): Promise<Ticket> {
  const [body = '', signature = '', ...rest] = text.split('.');
  const claims = rest.length === 0 ? parseClaims(body) : undefined;
  if (!claims) throw invalidTicket('the ticket is malformed');
  // The signature first: nothing a forger wrote is used to address the cluster.
  const expected = Buffer.from(await sign(deps, claims, body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw invalidTicket('the ticket is not valid');
  if (claims.ns !== namespace || claims.sb !== name)
    throw invalidTicket('the ticket was issued for another sandbox');
  const sandbox = deps.cache.get(namespace, name) ?? (await deps.sandboxes.read(namespace, name));
  if (!sandbox || sandbox.metadata.uid !== claims.uid)
    throw invalidTicket('the ticket was issued for another sandbox');
  const ttlMs = claims.exp - deps.clock().getTime();
  if (ttlMs <= 0) throw invalidTicket('the ticket has expired');
  return {
    caller: { user: claims.sub, groups: claims.groups, isAdmin: claims.admin, via: 'ticket' },
    id: claims.jti,
    ttlMs,
  };
}

export const invalidTicket = (message: string) => new HttpError(401, 'invalid_ticket', message);

/**
 * HMAC-SHA256 of the claims, keyed by a key derived from the sandbox's sandboxd token: the
 * installation's key (shared by every replica through its Secret) bound to this sandbox.
 */
async function sign(deps: ApiDeps, claims: TicketClaims, body: string): Promise<string> {
  const token = await deps.sandboxd.token(claims.ns, claims.sb, claims.uid);
  const key = createHmac('sha256', token).update('svc terminal ticket v1').digest();
  return createHmac('sha256', key).update(body).digest('base64url');
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
      typeof c.exp === 'number' &&
      typeof c.jti === 'string'
    )
      return c as TicketClaims;
  } catch {
    // not base64url JSON
  }
  return undefined;
}
