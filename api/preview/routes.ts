import { Hono, type Context } from 'hono';
import { routePath } from 'hono/route';
import { z } from 'zod';
import { SandboxPod } from '../../core/index.ts';
import { HttpError, notFound, validationError } from '../errors/index.ts';
import type { ApiDeps } from '../deps.ts';
import { ownedSandbox } from '../sandboxes/index.ts';
import { forwardHeaders, responseHeaders } from './headers.ts';

const PortParam = z.coerce.number().int().min(1).max(65535);

/**
 * `/sandboxes/{id}/preview/{port}/*`, any method: the authenticated, owner-or-admin way to
 * reach a forwarded port without an ingress. Bodies stream both ways; nothing is buffered.
 */
export function previewRoutes(deps: ApiDeps): Hono {
  const app = new Hono();
  const handler = async (c: Context) => {
    const target = await previewTarget(c, deps);
    const url = new URL(c.req.url);
    const { prefix, rest } = splitPreviewPath(url.pathname, routePath(c));
    const query = new URLSearchParams(url.search);
    query.delete('namespace');
    const qs = query.toString();
    const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
    const init: RequestInit & { duplex?: 'half' } = {
      method: c.req.method,
      headers: forwardHeaders(c.req.raw.headers, {
        host: url.host,
        proto: url.protocol.replace(':', ''),
        prefix,
        clientAddress: incoming?.socket?.remoteAddress,
      }),
      redirect: 'manual',
      signal: c.req.raw.signal,
    };
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.raw.body) {
      init.body = c.req.raw.body;
      init.duplex = 'half';
    }
    const upstream = await fetch(`${target}${rest}${qs ? `?${qs}` : ''}`, init).catch((err: unknown) => {
      // The cause names the sandbox's internal address: the log keeps it, the caller does not.
      deps.logger.warn({ err, sandbox: c.req.param('id') }, 'preview upstream failed');
      throw new HttpError(502, 'bad_gateway', `port ${c.req.param('port')} of the sandbox did not answer`);
    });
    return new Response(upstream.body, {
      status: upstream.status,
      headers: responseHeaders(upstream.headers),
    });
  };
  app.all('/:id/preview/:port', handler);
  app.all('/:id/preview/:port/*', handler);
  return app;
}

/**
 * The matched preview prefix and the path forwarded to the app, cut at segment boundaries:
 * the route's own segments up to `:port` (their decoded values came from the route
 * parameters), then the rest exactly as the caller encoded it. Cutting by character
 * count breaks when the raw and decoded ids differ in length (`%61gb` vs `agb`).
 */
export function splitPreviewPath(rawPath: string, routePath: string): { prefix: string; rest: string } {
  const depth = routePath.split('/').indexOf(':port') + 1;
  const segments = rawPath.split('/');
  return { prefix: segments.slice(0, depth).join('/'), rest: `/${segments.slice(depth).join('/')}` };
}

/** Owner-or-admin, `Running` (409 otherwise), port forwarded (404 otherwise): the base URL. */
export async function previewTarget(c: Context, deps: ApiDeps): Promise<string> {
  const sandbox = await ownedSandbox(c, deps);
  const port = PortParam.safeParse(c.req.param('port'));
  if (!port.success) throw validationError(port.error, 'port');
  if (port.data === SandboxPod.port) throw sandboxdPort();
  const name = sandbox.metadata.name ?? '';
  if (sandbox.status?.phase !== 'Running') {
    throw new HttpError(
      409,
      'not_running',
      `sandbox ${name} is not running (phase: ${sandbox.status?.phase ?? 'none'})`,
    );
  }
  if (!(sandbox.status.forwardedPorts ?? []).some((p) => p.port === port.data)) {
    throw notFound(`port ${port.data} of sandbox ${name} is not forwarded`);
  }
  try {
    return await deps.previews.base(sandbox.metadata.namespace ?? '', name, port.data);
  } catch (err) {
    deps.logger.warn({ err, sandbox: name, port: port.data }, 'preview target lookup failed');
    throw new HttpError(502, 'bad_gateway', `port ${port.data} of sandbox ${name} cannot be reached yet`);
  }
}

/** sandboxd's own port: reachable only with the sandbox's token, never through a preview. */
export const sandboxdPort = () =>
  new HttpError(
    400,
    'invalid_request',
    `invalid request: port: ${SandboxPod.port} is the sandbox's control port and cannot be forwarded`,
    { extra: { fields: [{ path: 'port', message: `must not be ${SandboxPod.port}` }] } },
  );
