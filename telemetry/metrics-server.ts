import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** `/metrics` (and `/healthz`) on its own small server, for a component with no HTTP API. */
export async function serveMetrics(
  registry: Registry,
  listen: { host: string; port: number },
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/metrics') {
      registry
        .metrics()
        .then((text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text))
        .catch(() => res.writeHead(500).end());
      return;
    }
    if (req.url === '/healthz') return void res.writeHead(200).end('ok');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(listen.port, listen.host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${listen.host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
