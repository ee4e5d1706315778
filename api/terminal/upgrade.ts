import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Hono, type MiddlewareHandler } from 'hono';
import { WebSocketServer } from 'ws';
import { authenticate } from '../auth/index.ts';
import type { TerminalDeps } from './deps.ts';
import { HttpError, errorHandler } from '../errors/index.ts';
import { sameOrigin } from '../origin/index.ts';
import { namespaceQuery, pathParams } from '../validation/index.ts';
import { RETRY_AFTER_SECONDS } from '../../core/index.ts';
import { terminalQuery } from './checks.ts';
import { TerminalMetrics } from './metrics.ts';
import { runSession, type SessionContext } from './session.ts';
import { invalidTicket, verifyTicket, type Ticket } from '../tickets/index.ts';
import { sandboxdOf, templateOf, ownedSandbox, requestNamespace, requireRunning } from '../request/index.ts';

/** The terminal's path; the server sends its upgrades here and the rest to the preview's. */
export const TERMINAL_PATH = /^\/api\/v1\/sandboxes\/[^/]+\/terminal$/;

/** The largest WebSocket message a client may send (a paste); sandboxd takes it in pieces. */
const MAX_MESSAGE_BYTES = 1024 * 1024;

type Checked = SessionContext & { upstream: { socket: Duplex; head: Buffer } };
type Env = { Bindings: { checked?: Checked }; Variables: { ticket?: Ticket } };

/**
 * `GET /api/v1/sandboxes/{id}/terminal` with `Upgrade: websocket`. The checks run as an HTTP
 * request would (authentication by header or `?ticket=`, owner-or-admin, Running, the query),
 * then sandboxd is asked for the session; only when it has opened one is the WebSocket
 * handshake completed, so every refusal (401, 403, 404, 409, 429…) is a plain HTTP answer.
 */
export function terminalUpgrade(deps: TerminalDeps): {
  onUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** Ends every open session (the server is shutting down): sandboxd hangs them up. */
  closeAll: () => void;
} {
  const metrics = new TerminalMetrics(deps.metrics.registry);
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: MAX_MESSAGE_BYTES,
  });
  const check = new Hono<Env>();
  check.onError(errorHandler(deps.logger));
  check.use(ticketOrCredentials(deps));
  check.use('/api/v1/sandboxes/*', namespaceQuery());
  check.use('/api/v1/sandboxes/:id/*', pathParams('id'));
  check.get('/api/v1/sandboxes/:id/terminal', async (c) => {
    // Looked up here, not by `onOwnedSandbox`: this is an app of its own, run on an upgrade's
    // headers with full paths, where no operation is declared (its route is `openTerminal`'s).
    const sandbox = await ownedSandbox(c, deps);
    requireRunning(sandbox, 'a terminal');
    const query = terminalQuery(c);
    const ticket = c.get('ticket');
    const template = templateOf(sandbox);
    const { answer: opening } = await sandboxdOf(deps, sandbox, (client) =>
      client.openTerminal({
        ...query,
        ...(ticket ? { ticket: { id: ticket.id, ttlMs: ticket.ttlMs } } : {}),
      }),
    );
    if (!opening.ok) {
      const body = opening.body as { error?: string; message?: string };
      if (opening.status === 429) {
        metrics.total.inc({ template, outcome: 'throttled' });
        throw new HttpError(429, 'too_many_terminals', body.message ?? 'too many terminal sessions', {
          headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
        });
      }
      if (opening.status === 409 && body.error === 'ticket_used')
        throw invalidTicket('the ticket was used already');
      metrics.total.inc({ template, outcome: 'error' });
      throw new HttpError(
        502,
        'sandbox_error',
        `sandboxd refused the terminal: ${body.message ?? opening.status}`,
      );
    }
    c.env.checked = { deps, metrics, sandbox, caller: c.var.caller, template, upstream: opening };
    return c.body(null, 204);
  });

  const closeAll = () => {
    for (const ws of wss.clients) ws.close(1001, 'the API is shutting down');
    setTimeout(() => {
      for (const ws of wss.clients) ws.terminate();
    }, 1_000).unref();
  };
  return { onUpgrade, closeAll };

  function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://api.local');
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string') headers.set(name, value);
    if (!/^websocket$/i.test(req.headers.upgrade ?? '')) {
      void refuse(
        socket,
        Response.json(
          { error: 'bad_request', message: 'the terminal speaks WebSocket only' },
          { status: 400 },
        ),
      );
      return;
    }
    // Before the checks: a foreign page's upgrade must not spend the ticket it carries.
    if (!sameOrigin(req)) {
      void refuse(
        socket,
        Response.json(
          { error: 'forbidden', message: 'a terminal WebSocket is opened only from its own origin' },
          { status: 403 },
        ),
      );
      return;
    }
    const env: Env['Bindings'] = {};
    void Promise.resolve(check.request(url.pathname + url.search, { method: 'GET', headers }, env))
      .then((res) => {
        const checked = env.checked;
        if (res.status !== 204 || !checked) return refuse(socket, res);
        let joined = false;
        wss.handleUpgrade(req, socket, head, (ws) => {
          joined = true;
          runSession(ws, checked.upstream, checked);
        });
        // A client gone meanwhile, or a malformed handshake (ws answered it): no session.
        if (!joined) checked.upstream.socket.end();
      })
      .catch((err: unknown) => {
        deps.logger.warn({ err }, 'terminal upgrade failed');
        socket.destroy();
      });
  }
}

/**
 * `?ticket=` stands for the caller it was issued to; a request that also sends a credential
 * must be that same caller. Without a ticket, the usual X-API-Key or bearer token.
 */
function ticketOrCredentials(deps: TerminalDeps): MiddlewareHandler<Env> {
  const auth = authenticate(deps.auth);
  return async (c, next) => {
    const text = c.req.query('ticket');
    if (text === undefined) return auth(c, next);
    const id = /^\/api\/v1\/sandboxes\/([^/]+)\/terminal$/.exec(c.req.path)?.[1] ?? '';
    const ticket = await verifyTicket(deps, 'terminal', text, {
      namespace: requestNamespace(c, deps),
      name: safeDecode(id),
    });
    if (c.req.header('x-api-key') !== undefined || c.req.header('authorization') !== undefined) {
      await auth(c, async () => {});
      if (c.var.caller.user !== ticket.caller.user)
        throw invalidTicket('the ticket was issued to another user');
    }
    c.set('caller', ticket.caller);
    c.set('ticket', ticket);
    await next();
  };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

async function refuse(socket: Duplex, res: Response): Promise<void> {
  const body = await res.text();
  const extra = ['retry-after', 'www-authenticate']
    .map((h) => (res.headers.get(h) ? `${h}: ${res.headers.get(h)}\r\n` : ''))
    .join('');
  socket.end(
    `HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? 'Error'}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}${extra ? `\r\n${extra.slice(0, -2)}` : ''}\r\nconnection: close\r\n\r\n${body}`,
  );
}
