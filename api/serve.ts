import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { ApiDeps } from './deps.ts';
import { previewUpgrade } from './preview/index.ts';

export interface ServedApi {
  /** `http://host:port` the server listens on. */
  url: string;
  close(): Promise<void>;
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
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${listen.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
