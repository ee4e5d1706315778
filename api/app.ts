import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { agentRoutes } from './agent/index.ts';
import { auditRoutes } from './audit/index.ts';
import { authenticate, requireAdmin } from './auth/index.ts';
import { kubeHttpError } from './cluster/index.ts';
import type { ApiDeps } from './deps.ts';
import { HttpError, errorHandler, notFound } from './errors/index.ts';
import { cloneRoutes } from './clone/index.ts';
import { execRoutes } from './exec/index.ts';
import { runRoutes } from './runs/index.ts';
import { fileRoutes } from './files/index.ts';
import { discoveryRoutes } from './discovery/index.ts';
import { consoleRoutes } from './console/index.ts';
import { governanceRoutes } from './governance/index.ts';
import { keyRoutes } from './keys/index.ts';
import { UserSlots, perUserConcurrency } from './limits/index.ts';
import { requestLog } from './logging/index.ts';
import { mcpRoutes } from './mcp/index.ts';
import { getOpenApiDocument, openApiDocument, route } from './openapi/index.ts';
import { portRoutes } from './ports/index.ts';
import { previewCredentials, previewRoutes } from './preview/index.ts';
import { sandboxRoutes } from './sandboxes/index.ts';
import { namespaceQuery, pathParams } from './validation/index.ts';
import { secretRoutes } from './secrets/index.ts';
import { terminalRoutes } from './terminal/index.ts';
import { usageRoutes } from './usage/index.ts';

/**
 * The HTTP API: health and metrics outside `/api/v1`; everything inside it authenticated
 * by one middleware. Drive it in-process with `app.request()` or serve `app.fetch`.
 */
export function createApp(deps: ApiDeps): Hono {
  const { registry } = deps.metrics;
  const app = new Hono();
  app.onError(errorHandler(deps.logger, kubeHttpError));
  app.use('/api/*', requestLog(deps.logger));
  app.notFound(() => {
    throw notFound('no such endpoint');
  });
  // Outside /api/v1 nothing needs more than a small body, and some paths answer without
  // credentials (the console's /console/oidc/token): a bound before any of them reads one.
  app.use('*', unless(API_PATH, bodyLimitOf(MAX_OTHER_BODY_BYTES)));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => c.json({ status: 'ok' }));
  // The API's metrics count every tenant's calls: on the API's own port (open to users) they
  // are an admin's; Prometheus scrapes them without credentials on `--metrics-listen`, a
  // port of their own that the chart's NetworkPolicy admits like the operator's.
  app.get('/metrics', authenticate(deps.auth), requireAdmin(deps.auth, 'metrics are admin only'), async (c) =>
    c.text(await registry.metrics(), 200, { 'content-type': registry.contentType }),
  );

  const v1 = new Hono();
  v1.use(previewCredentials(deps, authenticate(deps.auth), { tickets: true }));
  // Every path and query parameter is checked here, after authentication and before any
  // route: nothing that is not a Kubernetes name reaches an apiserver path or selector.
  v1.use('/sandboxes/*', namespaceQuery());
  v1.use('/sandboxes/:id/*', pathParams('id'));
  v1.use('/sandboxes/:id/ports/:port', pathParams('port'));
  v1.use('/sandboxes/:id/ports/:port/*', pathParams('port'));
  v1.use('/sandboxes/:id/preview/:port/*', pathParams('port'));
  v1.use('/secrets/*', namespaceQuery());
  v1.use('/secrets/:secretName', pathParams('secretName'));
  v1.use('/audit/*', namespaceQuery());
  v1.use('/governance/effective', namespaceQuery());
  v1.use('/governance/policies/:namespace', pathParams('namespace'));
  v1.use('/apikeys/:keyId', pathParams('keyId'));
  // Before any body is read (the JSON limit below reads a chunked one): a caller at the cap
  // is refused without a byte of it.
  v1.use('/sandboxes/:id/*', heavyCalls(perUserConcurrency(new UserSlots(deps.limits.perUserConcurrency))));
  v1.use(jsonBodyLimit());
  const document = openApiDocument();
  route(v1, getOpenApiDocument, (_, __, reply) => reply.json(200, document));
  v1.route('/', sandboxRoutes(deps));
  v1.route('/', cloneRoutes(deps));
  v1.route('/', portRoutes(deps));
  v1.route('/', previewRoutes(deps));
  v1.route('/', agentRoutes(deps));
  v1.route('/', execRoutes(deps));
  v1.route('/', runRoutes(deps));
  v1.route('/', fileRoutes(deps));
  v1.route('/', terminalRoutes(deps));
  v1.route('/', usageRoutes(deps));
  v1.route('/', discoveryRoutes(deps));
  v1.route('/', secretRoutes(deps));
  v1.route('/', keyRoutes(deps));
  v1.route('/', auditRoutes(deps));
  v1.route('/', governanceRoutes(deps));
  // Each MCP tool call is dispatched back into this app as the caller (api/mcp).
  v1.route('/', mcpRoutes({ dispatch: (request) => Promise.resolve(app.fetch(request)), version: 'v1' }));
  app.route('/api/v1', v1);
  if (deps.console) app.route('/', consoleRoutes(deps.console));
  return app;
}

/**
 * The calls a user's cap counts, each holding a sandboxd run or a transfer while it lasts:
 * exec, invoke and configure, file downloads and uploads, archives. Cancels, listings,
 * deletes and moves are quick and not counted.
 */
const HEAVY_CALLS: Record<string, RegExp> = {
  POST: /\/sandboxes\/[^/]+\/(exec|invoke|configure)$/,
  GET: /\/sandboxes\/[^/]+\/(files\/.|archive$)/,
  PUT: /\/sandboxes\/[^/]+\/(files\/.|archive$)/,
};

/** `limit` on the calls of `HEAVY_CALLS` only. */
function heavyCalls(limit: MiddlewareHandler): MiddlewareHandler {
  return (c, next) => (HEAVY_CALLS[c.req.method]?.test(c.req.path) ? limit(c, next) : next());
}

/** `handler` on every path but those `skip` matches. */
function unless(skip: RegExp, handler: MiddlewareHandler): MiddlewareHandler {
  return (c, next) => (skip.test(c.req.path) ? next() : handler(c, next));
}

/** The largest JSON body of any endpoint but configure, invoke and previews. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * The largest body of any path outside `/api/v1`: the console's token exchange (a code of
 * at most 4 KiB, a verifier, a redirect URI) is the only one that takes a body at all.
 */
export const MAX_OTHER_BODY_BYTES = 64 * 1024;

/** `/api/v1` and below: bounded per route by `jsonBodyLimit` and the routes' own limits. */
const API_PATH = /^\/api\/v1(\/|$)/;

/**
 * Configure and invoke have their own documented limits; a preview streams to the app; a
 * file or archive upload streams to the sandbox, bounded only by its volume.
 */
const OWN_LIMITS = /\/sandboxes\/[^/]+\/(configure$|invoke$|preview(\/|$)|files\/.|archive$)/;

/**
 * 413 above `MAX_JSON_BODY_BYTES`, decided from Content-Length before a byte is read, or
 * while a chunked body is read: never after buffering it.
 */
function jsonBodyLimit(): MiddlewareHandler {
  return unless(OWN_LIMITS, bodyLimitOf(MAX_JSON_BODY_BYTES));
}

/** Hono's `bodyLimit`, refusing with the API's JSON 413. */
function bodyLimitOf(maxSize: number): MiddlewareHandler {
  return bodyLimit({
    maxSize,
    onError: () => {
      throw new HttpError(413, 'payload_too_large', `the request body is larger than ${maxSize} bytes`);
    },
  });
}
