import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { ApiDeps } from './deps.ts';
import { previewUpgrade } from './preview/index.ts';

export interface ServedApi {
  /** `http://host:port` the server listens on. */
  url: string;
  /**
   * Stops accepting connections, lets requests in flight finish for up to `drainMs` (0: none),
   * then closes what is left. A stream cut at the deadline ends its invoke as a client
   * disconnect would (sandboxd cancels it).
   */
  close(opts?: { drainMs?: number }): Promise<void>;
}

/** Serves the app over HTTP/1.1, with WebSocket upgrades on the preview path passed through. */
export async function serveApi(
  app: Hono,
  deps: ApiDeps,
  listen: { host: string; port: number },
): Promise<ServedApi> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: listen.host, port: listen.port }, () => resolve(s));
  });
  server.on('upgrade', previewUpgrade(deps));
  // Requests in flight, so a shutdown can wait for them (streams included) and no longer.
  let inFlight = 0;
  let drained: (() => void) | undefined;
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    res.once('close', () => {
      if (--inFlight === 0) drained?.();
    });
  });
  const http = server as unknown as { closeAllConnections(): void; closeIdleConnections(): void };
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${listen.host}:${port}`,
    async close(opts = {}) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      http.closeIdleConnections();
      const drainMs = opts.drainMs ?? 0;
      if (inFlight > 0 && drainMs > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, drainMs);
          drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      http.closeAllConnections();
      await closed;
    },
  };
}
