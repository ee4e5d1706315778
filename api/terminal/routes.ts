import { Hono } from 'hono';
import type { TerminalDeps } from './deps.ts';
import { HttpError } from '../errors/index.ts';
import { route } from '../openapi/index.ts';
import { issueTicket } from '../tickets/index.ts';
import { terminalQuery } from './checks.ts';
import { createTerminalTicket, openTerminal, terminalOperations } from './operations.ts';
import { onOwnedSandbox, requireRunning, type OnSandbox } from '../request/index.ts';

/** How long a terminal ticket may wait for its WebSocket upgrade. */
export const TICKET_TTL_MS = 30_000;

/**
 * The terminal's HTTP side: tickets for browsers (which cannot set headers on a WebSocket),
 * and a plain GET of the terminal, which only says to upgrade (the upgrade itself is served
 * by `terminalUpgrade` on the server's `upgrade` event).
 */
export function terminalRoutes(deps: TerminalDeps): Hono<OnSandbox> {
  const app = new Hono<OnSandbox>();
  onOwnedSandbox(app, deps, terminalOperations);

  route(app, createTerminalTicket, async (c, _, reply) => {
    const sandbox = c.var.sandbox;
    requireRunning(sandbox, 'a terminal');
    // Never logged: the request log has method, path and status only.
    return reply.json(
      200,
      await issueTicket(deps, 'terminal', c.var.caller, sandbox, { ttlMs: TICKET_TTL_MS }),
    );
  });

  route(app, openTerminal, (c) => {
    requireRunning(c.var.sandbox, 'a terminal');
    terminalQuery(c);
    throw new HttpError(426, 'upgrade_required', 'the terminal is a WebSocket: send Upgrade: websocket', {
      headers: { upgrade: 'websocket', connection: 'Upgrade' },
    });
  });

  return app;
}
