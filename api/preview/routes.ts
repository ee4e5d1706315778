import { Hono, type Context } from 'hono';
import { routePath } from 'hono/route';
import { SandboxPod, type Sandbox } from '../../core/index.ts';
import { HttpError, notFound } from '../errors/index.ts';
import type { PreviewDeps } from './deps.ts';
import { route } from '../openapi/index.ts';
import { issueTicket } from '../tickets/index.ts';
import { forwardHeaders, responseHeaders } from './headers.ts';
import { createPreviewTicket, previewPort as previewOperation } from './operations.ts';
import { PREVIEW_TICKET_TTL_MS } from './signin.ts';
import { onOwnedSandbox, ownedSandbox, type OnSandbox } from '../request/index.ts';

/**
 * `/sandboxes/{id}/preview/{port}/*`, any method: the authenticated, owner-or-admin way to
 * reach a forwarded port without an ingress. Bodies stream both ways; nothing is buffered.
 */
export function previewRoutes(deps: PreviewDeps): Hono<OnSandbox> {
  const app = new Hono<OnSandbox>();
  onOwnedSandbox(app, deps, [previewOperation, createPreviewTicket]);
  route(app, previewOperation, async (c) => {
    const target = await previewTarget(c, deps, c.var.sandbox);
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
      headers: responseHeaders(upstream.headers, url),
    });
  });
  // A ticket a browser exchanges for the preview's cookie (`previewCredentials`): the URL to
  // open, relative to this API's host. Never logged: the request log has no bodies.
  route(app, createPreviewTicket, async (c, { query }, reply) => {
    const { sandbox, port } = previewPort(c, c.var.sandbox);
    const { ticket, expiresAt } = await issueTicket(deps, 'preview', c.var.caller, sandbox, {
      ttlMs: PREVIEW_TICKET_TTL_MS,
      port,
    });
    const search = new URLSearchParams();
    if (query.namespace) search.set('namespace', query.namespace);
    search.set('ticket', ticket);
    const path = c.req.path.replace(/\/ports\/[^/]+\/preview-ticket$/, `/preview/${port}/`);
    c.header('cache-control', 'no-store');
    return reply.json(200, { url: `${path}?${search.toString()}`, expiresAt });
  });
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

/**
 * `Running` (409 otherwise), port forwarded (404 otherwise): the sandbox and port. `sandbox`
 * is the caller's, owner-or-admin checked already (`onOwnedSandbox`, or `ownedSandbox`).
 */
export function previewPort(c: Context, sandbox: Sandbox): { sandbox: Sandbox; port: number } {
  // `{port}` was checked before any route or upgrade (api/validation's pathParams): 1–65535.
  const port = Number(c.req.param('port'));
  if (port === SandboxPod.port) throw sandboxdPort();
  const name = sandbox.metadata.name ?? '';
  if (sandbox.status?.phase !== 'Running') {
    throw new HttpError(
      409,
      'not_running',
      `sandbox ${name} is not running (phase: ${sandbox.status?.phase ?? 'none'})`,
    );
  }
  if (!(sandbox.status.forwardedPorts ?? []).some((p) => p.port === port)) {
    throw notFound(`port ${port} of sandbox ${name} is not forwarded`);
  }
  return { sandbox, port };
}

/**
 * `previewPort`'s checks, then the base URL of the port's Service. Without `owned`, the
 * sandbox is looked up here (the upgrade's check, an app of its own on full paths that no
 * operation declares, has no `onOwnedSandbox` in front).
 */
export async function previewTarget(c: Context, deps: PreviewDeps, owned?: Sandbox): Promise<string> {
  const { sandbox, port } = previewPort(c, owned ?? (await ownedSandbox(c, deps)));
  const name = sandbox.metadata.name ?? '';
  try {
    return await deps.previews.base(sandbox.metadata.namespace ?? '', name, port);
  } catch (err) {
    deps.logger.warn({ err, sandbox: name, port }, 'preview target lookup failed');
    throw new HttpError(502, 'bad_gateway', `port ${port} of sandbox ${name} cannot be reached yet`);
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
