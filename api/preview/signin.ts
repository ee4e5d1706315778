import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { PreviewDeps } from './deps.ts';
import { invalidTicket, issueTicket, verifyTicket } from '../tickets/index.ts';
import { requestNamespace } from '../request/index.ts';

/** How long a preview ticket may wait to be exchanged for a cookie: a click's round trip. */
export const PREVIEW_TICKET_TTL_MS = 30_000;
/**
 * How long a preview cookie authenticates. The caller it names is re-checked against the
 * sandbox's owner on every request, but a revoked API key keeps its cookies this long.
 */
export const PREVIEW_SESSION_TTL_MS = 15 * 60_000;
export const PREVIEW_COOKIE = 'svc_preview';

/** `/api/v1/sandboxes/{id}/preview/{port}[/…]`: the sandbox's id and the port, raw. */
const PREVIEW_PATH = /^\/api\/v1\/sandboxes\/([^/]+)\/preview\/(\d{1,5})(?:\/|$)/;

/**
 * The preview's sign-in for browsers, which cannot send a header with a link opened in a
 * new tab. On the preview path only, and only when the request carries no X-API-Key and
 * no Authorization (those always win, and are checked by `auth` as anywhere else):
 * - `GET …/preview/{port}/…?ticket=T` exchanges a preview ticket (`POST
 *   …/ports/{port}/preview-ticket`) once for a cookie, answering 303 to the same URL without
 *   the ticket, so the ticket stays neither in the address bar nor in the history;
 * - a request with the cookie is the caller the cookie names. The cookie is signed, carries
 *   its expiry and is bound to the user, the sandbox (by uid) and the port; its `Path` is
 *   that port's preview path, and nothing else accepts it (this middleware is the only
 *   reader, and it only runs for the preview path). The route behind re-checks
 *   owner-or-admin, phase and port on every request, as it does for header credentials.
 * `tickets: false` (WebSocket upgrades) takes the cookie only: a ticket is for a navigation.
 * Tickets are used once per API replica: the ledger is this middleware's own memory.
 */
export function previewCredentials(
  deps: PreviewDeps,
  auth: MiddlewareHandler,
  opts: { tickets: boolean },
): MiddlewareHandler {
  /** Ticket id → its expiry (ms): the tickets this replica has exchanged and that could still be valid. */
  const used = new Map<string, number>();
  return async (c, next) => {
    const match = PREVIEW_PATH.exec(c.req.path);
    if (!match || c.req.header('x-api-key') !== undefined || c.req.header('authorization') !== undefined)
      return auth(c, next);
    const target = {
      namespace: requestNamespace(c, deps),
      name: safeDecode(match[1]!),
      port: Number(match[2]),
    };
    const ticket = opts.tickets && c.req.method === 'GET' ? c.req.query('ticket') : undefined;
    if (ticket !== undefined) return exchange(c, ticket, target);
    const cookie = getCookie(c, PREVIEW_COOKIE);
    if (cookie === undefined) return auth(c, next);
    const session = await verifyTicket(deps, 'preview-session', cookie, target);
    c.set('caller', session.caller);
    await next();
  };

  async function exchange(
    c: Context,
    text: string,
    target: { namespace: string; name: string; port: number },
  ): Promise<Response> {
    const ticket = await verifyTicket(deps, 'preview', text, target);
    const now = deps.clock().getTime();
    for (const [id, exp] of used) if (exp <= now) used.delete(id);
    if (used.has(ticket.id)) throw invalidTicket('the ticket was used already');
    used.set(ticket.id, ticket.expiresAt);
    const session = await issueTicket(deps, 'preview-session', ticket.caller, ticket.sandbox, {
      ttlMs: PREVIEW_SESSION_TTL_MS,
      port: target.port,
    });
    const url = new URL(c.req.url);
    // Lax, not Strict: a link followed inside the preview is a navigation from the preview's
    // own (opaque, sandboxed) origin, which Strict treats as cross-site. Lax still keeps the
    // cookie off every cross-site subrequest and cross-site POST.
    setCookie(c, PREVIEW_COOKIE, session.ticket, {
      path: `/api/v1/sandboxes/${encodeURIComponent(target.name)}/preview/${target.port}`,
      httpOnly: true,
      sameSite: 'Lax',
      secure: url.protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https',
      maxAge: PREVIEW_SESSION_TTL_MS / 1000,
    });
    url.searchParams.delete('ticket');
    c.header('cache-control', 'no-store');
    c.header('referrer-policy', 'no-referrer');
    return c.redirect(url.pathname + url.search, 303);
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
