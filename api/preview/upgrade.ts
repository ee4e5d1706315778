import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { Hono, type Context } from 'hono';
import { routePath } from 'hono/route';
import { authenticate } from '../auth/index.ts';
import type { PreviewDeps } from './deps.ts';
import { errorHandler } from '../errors/index.ts';
import { sameOrigin } from '../origin/index.ts';
import { pathParams } from '../validation/index.ts';
import { NOT_FORWARDED } from './headers.ts';
import { previewTarget, splitPreviewPath } from './routes.ts';
import { previewCredentials } from './signin.ts';

/**
 * Passes WebSocket (and other HTTP Upgrade) requests on the preview path through to the
 * sandbox's port, after the same authentication and checks as plain preview requests.
 * Attach to the HTTP server's `upgrade` event.
 */
export function previewUpgrade(
  deps: PreviewDeps,
): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  // The same middleware and checks as the HTTP routes, run on the upgrade's headers.
  const check = new Hono();
  check.onError(errorHandler(deps.logger));
  check.use(previewCredentials(deps, authenticate(deps.auth), { tickets: false }));
  check.use('/api/v1/sandboxes/:id/preview/:port/*', pathParams('port'));
  const target = async (c: Context) =>
    c.json({
      target: await previewTarget(c, deps),
      ...splitPreviewPath(new URL(c.req.url).pathname, routePath(c)),
    });
  check.all('/api/v1/sandboxes/:id/preview/:port/*', target);
  check.all('/api/v1/sandboxes/:id/preview/:port', target);

  return function onUpgrade(req, socket, head) {
    const url = new URL(req.url ?? '/', 'http://api.local');
    if (!sameOrigin(req)) {
      void refuse(
        socket,
        Response.json(
          { error: 'forbidden', message: 'a preview WebSocket is opened only from its own origin' },
          { status: 403, statusText: 'Forbidden' },
        ),
      );
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string') headers.set(name, value);
    void Promise.resolve(check.request(url.pathname + url.search, { method: 'GET', headers }))
      .then(async (res) => {
        if (res.status !== 200) return refuse(socket, res);
        const { target, rest } = (await res.json()) as { target: string; rest: string };
        const query = new URLSearchParams(url.search);
        query.delete('namespace');
        const path = rest + (query.size ? `?${query.toString()}` : '');
        tunnel(new URL(target), path, req, socket, head);
      })
      .catch((err: unknown) => {
        deps.logger.warn({ err }, 'preview upgrade failed');
        socket.destroy();
      });
  };
}

async function refuse(socket: Duplex, res: Response): Promise<void> {
  const body = await res.text();
  socket.end(
    `HTTP/1.1 ${res.status} ${res.statusText || 'Error'}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function tunnel(target: URL, path: string, req: IncomingMessage, client: Duplex, head: Buffer): void {
  const upstream: Socket = connect(Number(target.port || 80), target.hostname, () => {
    const lines = [`${req.method ?? 'GET'} ${path} HTTP/1.1`, `host: ${target.host}`];
    // The same rule as plain requests: no credentials, our own forwarding headers; the
    // upgrade's own hop-by-hop headers (Connection, Upgrade) are what the tunnel is for.
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!.toLowerCase();
      if (!NOT_FORWARDED.has(name) || name === 'connection' || name === 'upgrade')
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    }
    if (req.socket.remoteAddress) lines.push(`x-forwarded-for: ${req.socket.remoteAddress}`);
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  const close = () => {
    upstream.destroy();
    client.destroy();
  };
  upstream.on('error', close);
  client.on('error', close);
  upstream.on('close', close);
  client.on('close', close);
}
