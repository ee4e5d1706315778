import { Hono, type Context } from 'hono';
import { z } from 'zod';
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
    const prefix = `/api/v1/sandboxes/${c.req.param('id')}/preview/${c.req.param('port')}`;
    const rest = url.pathname.slice(url.pathname.indexOf(prefix) + prefix.length) || '/';
    const query = new URLSearchParams(url.search);
    query.delete('namespace');
    const qs = query.toString();
    const init: RequestInit & { duplex?: 'half' } = {
      method: c.req.method,
      headers: forwardHeaders(c.req.raw.headers, {
        host: url.host,
        proto: url.protocol.replace(':', ''),
        prefix,
      }),
      redirect: 'manual',
      signal: c.req.raw.signal,
    };
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.raw.body) {
      init.body = c.req.raw.body;
      init.duplex = 'half';
    }
    const upstream = await fetch(`${target}${rest}${qs ? `?${qs}` : ''}`, init).catch((err: unknown) => {
      throw new HttpError(502, 'bad_gateway', `the sandbox's port did not answer: ${(err as Error).message}`);
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

/** Owner-or-admin, `Running` (409 otherwise), port forwarded (404 otherwise): the base URL. */
export async function previewTarget(c: Context, deps: ApiDeps): Promise<string> {
  const sandbox = await ownedSandbox(c, deps);
  const port = PortParam.safeParse(c.req.param('port'));
  if (!port.success) throw validationError(port.error, 'port');
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
  return deps.previews.base(sandbox.metadata.namespace ?? '', name, port.data);
}
