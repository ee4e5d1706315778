import type { IncomingMessage } from 'node:http';

/**
 * Whether a browser's page may open a WebSocket here: its `Origin` is this host's own (the
 * console's, or a preview page's on this path), or there is none (a program, not a browser).
 * Browsers send any site's page's upgrade with the cookies of this host, and a WebSocket is
 * not bound by CORS: without the check, another site could talk to a preview or a terminal
 * as its signed-in user. `null` (a sandboxed or opaque page) is another origin too. The
 * preview's and the terminal's upgrades both ask this, before anything is spent.
 */
export function sameOrigin(req: Pick<IncomingMessage, 'headers'>): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host?.toLowerCase();
  } catch {
    return false;
  }
}
