import { Hono } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { HttpError } from '../errors/index.ts';
import { ownedSandbox } from '../sandboxes/index.ts';
import { requireRunning, terminalQuery } from './checks.ts';
import { issueTicket } from '../tickets/index.ts';

/** How long a terminal ticket may wait for its WebSocket upgrade. */
export const TICKET_TTL_MS = 30_000;

/**
 * The terminal's HTTP side: tickets for browsers (which cannot set headers on a WebSocket),
 * and a plain GET of the terminal, which only says to upgrade (the upgrade itself is served
 * by `terminalUpgrade` on the server's `upgrade` event).
 */
export function terminalRoutes(deps: ApiDeps): Hono {
  const app = new Hono();

  app.post('/:id/terminal/ticket', async (c) => {
    const sandbox = await ownedSandbox(c, deps);
    requireRunning(sandbox);
    // Never logged: the request log has method, path and status only.
    return c.json(await issueTicket(deps, 'terminal', c.var.caller, sandbox, { ttlMs: TICKET_TTL_MS }));
  });

  app.get('/:id/terminal', async (c) => {
    const sandbox = await ownedSandbox(c, deps);
    requireRunning(sandbox);
    terminalQuery(c);
    throw new HttpError(426, 'upgrade_required', 'the terminal is a WebSocket: send Upgrade: websocket', {
      headers: { upgrade: 'websocket', connection: 'Upgrade' },
    });
  });

  return app;
}
