import { Hono } from 'hono';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, test } from 'vitest';
import { createApp } from '../app.ts';
import type { ApiDeps } from '../deps.ts';
import { operations, type Operation } from './document.ts';
import { honoPaths, methodOf, operation, operationOf, route } from './route.ts';

/**
 * Every operation of the document has its route, registered by `route()` from the
 * operation itself, and every route under `/api/v1` is one: an endpoint cannot be served
 * undocumented, nor documented unserved. The app is built, never called.
 */

const API = '/api/v1';

/** Registrations under `/api/v1` that are not operations, each with why. */
const NOT_OPERATIONS: Record<string, string> = {
  // Streamable HTTP asks a server without a stream of its own, or sessions, to answer 405.
  'GET /api/v1/mcp': 'the MCP transport: a stateless server has no stream to open',
  'DELETE /api/v1/mcp': 'the MCP transport: a stateless server has no session to end',
};

/**
 * What does not match between `app`'s routes and `ops`: a route under `/api/v1` that no
 * operation declares, an operation without a route, a route whose method or path is not its
 * operation's. Middleware (on any method: `onOwnedSandbox` runs on its operations' own) is
 * told from a route by taking `next` (Hono lists both as routes).
 */
function mismatches(app: Hono, ops: readonly Operation[]): string[] {
  const problems: string[] = [];
  const routed = new Map<Operation, string[]>();
  for (const r of app.routes) {
    const key = `${r.method} ${r.path}`;
    const op = operationOf(r.handler);
    if (op) {
      routed.set(op, [...(routed.get(op) ?? []), key]);
      if (!ops.includes(op)) problems.push(`${key}: operation ${op.operationId} is not in the document`);
      if (!honoPaths(op).some((path) => key === `${methodOf(op)} ${API}${path}`))
        problems.push(`${key}: operation ${op.operationId} is ${methodOf(op)} ${op.path}`);
      continue;
    }
    const middleware = r.handler.length >= 2;
    if (middleware || !(r.path === API || r.path.startsWith(`${API}/`)) || key in NOT_OPERATIONS) continue;
    problems.push(`${key}: a route that no operation declares (register it with route())`);
  }
  for (const op of ops) {
    const keys = routed.get(op) ?? [];
    if (keys.length === 0) problems.push(`${op.operationId} (${op.method} ${op.path}): no route`);
    // One route per path the operation answers at (two with a trailing slash).
    if (keys.length > honoPaths(op).length)
      problems.push(`${op.operationId}: routed ${keys.length} times (${keys.join(', ')})`);
  }
  return problems;
}

// Built, never called: no handler runs, so nothing here reaches a cluster.
const deps = {
  auth: { devAuth: false },
  logger: pino({ level: 'silent' }),
  metrics: { registry: new Registry() },
  kc: { makeApiClient: () => ({}) },
  limits: { perUserConcurrency: 1 },
} as unknown as ApiDeps;

describe('every operation has a route and every route an operation', () => {
  test('the API as served', () => {
    expect(mismatches(createApp(deps), operations)).toEqual([]);
  });

  const ping = operation({
    method: 'get',
    path: '/things/{name}',
    operationId: 'getThing',
    summary: 'A thing',
    responses: { 204: undefined },
    errors: [401],
  });
  const mounted = (register: (v1: Hono) => void) => {
    const app = new Hono();
    const v1 = new Hono();
    v1.use(async (_, next) => next());
    register(v1);
    app.route(API, v1);
    return app;
  };

  test('an operation without a route fails it', () => {
    expect(
      mismatches(
        mounted(() => {}),
        [ping],
      ),
    ).toEqual(['getThing (get /things/{name}): no route']);
  });

  test('a route without an operation fails it, and one of an operation not in the document', () => {
    const app = mounted((v1) => {
      v1.get('/things/:name', (c) => c.body(null, 204));
      route(v1, ping, (_, __, reply) => reply.empty(204));
    });
    expect(mismatches(app, [])).toEqual([
      'GET /api/v1/things/:name: a route that no operation declares (register it with route())',
      'GET /api/v1/things/:name: operation getThing is not in the document',
    ]);
    expect(mismatches(app, [ping])).toEqual([
      'GET /api/v1/things/:name: a route that no operation declares (register it with route())',
    ]);
  });
});
