import { Hono } from 'hono';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { FileListing, ListFilesQuery, NamespaceQuery, type Sandbox } from '../../core/index.ts';
import type { ApiDeps } from '../deps.ts';
import { errorHandler } from '../errors/index.ts';
import { operation, route } from '../openapi/index.ts';
import { onOwnedSandbox, requireRunning, type OnSandbox } from './scope.ts';

const sandbox = (name: string, createdBy: string, phase = 'Running'): Sandbox =>
  ({
    apiVersion: 'svc.io/v1alpha1',
    kind: 'Sandbox',
    metadata: {
      name,
      namespace: 'team',
      annotations: { 'svc.io/last-activity': new Date().toISOString() },
    },
    spec: { createdBy, mode: 'code', templateRef: { kind: 'SandboxTemplate', name: 't' } },
    status: { phase },
  }) as unknown as Sandbox;

/** The lookups `ownedSandbox` makes, counted: the cache for a Running sandbox, else a read. */
function fakeDeps(sandboxes: Sandbox[]) {
  const lookups: string[] = [];
  const find = (namespace: string, name: string) =>
    sandboxes.find((s) => s.metadata.namespace === namespace && s.metadata.name === name);
  const deps = {
    defaultNamespace: 'team',
    clock: () => new Date(),
    logger: pino({ level: 'silent' }),
    cache: {
      get: (namespace: string, name: string) => {
        lookups.push(name);
        return find(namespace, name);
      },
    },
    sandboxes: {
      read: (namespace: string, name: string) => {
        lookups.push(name);
        return Promise.resolve(find(namespace, name));
      },
      mergePatch: () => Promise.resolve(undefined),
    },
  } as unknown as ApiDeps;
  return { deps, lookups };
}

const listing = operation({
  method: 'get',
  path: '/sandboxes/{id}/files',
  operationId: 'listFiles',
  summary: 'test',
  trailingSlash: true,
  query: ListFilesQuery,
  responses: { 200: FileListing },
  errors: [400, 401, 403, 404],
});
const reading = operation({
  method: 'get',
  path: '/sandboxes/{id}/files/{path}',
  operationId: 'readFile',
  summary: 'test',
  query: NamespaceQuery,
  responses: { 200: FileListing },
  errors: [400, 401, 403, 404],
});

/** An API as app.ts builds one: a group on its sandbox, and another group's route beside it. */
function api(deps: ApiDeps) {
  const group = new Hono<OnSandbox>();
  onOwnedSandbox(group, deps, [listing, reading]);
  route(group, listing, (c, { query }, reply) =>
    reply.json(200, { path: `${c.var.sandbox.metadata.name}:${query.path}`, entries: [] }),
  );
  route(group, reading, (c, _, reply) =>
    reply.json(200, { path: `${c.var.sandbox.metadata.name}:read`, entries: [] }),
  );
  // Registered second, so never reached: `tsc` reads it. An answer unlike its schema fails.
  // @ts-expect-error: FileListing's path is a string, and it has entries.
  route(group, reading, (_c, _, reply) => reply.json(200, { path: 1 }));
  const other = new Hono();
  other.get('/sandboxes/:id/usage', (c) => c.json({ other: c.req.param('id') }));
  const app = new Hono();
  app.onError(errorHandler(pino({ level: 'silent' })));
  app.use('*', async (c, next) => {
    c.set('caller', { user: c.req.header('x-user') ?? 'alice', groups: [], isAdmin: false, via: 'api-key' });
    await next();
  });
  app.route('/', group);
  app.route('/', other);
  return app;
}

describe('onOwnedSandbox', () => {
  it.each([
    ['/sandboxes/box/files?path=/workspace', 'box:/workspace'],
    ['/sandboxes/box/files/?path=/workspace', 'box:/workspace'],
    ['/sandboxes/box/files/workspace/a.txt', 'box:read'],
  ])('%s: the handler finds the sandbox, looked up once', async (path, answer) => {
    const { deps, lookups } = fakeDeps([sandbox('box', 'alice')]);
    const res = await api(deps).request(path);
    expect([res.status, await res.json()]).toEqual([200, { path: answer, entries: [] }]);
    expect(lookups).toEqual(['box']);
  });

  it('404 for a sandbox that does not exist and 403 for another’s, before the query is checked', async () => {
    const { deps } = fakeDeps([sandbox('box', 'alice')]);
    const missing = await api(deps).request('/sandboxes/gone/files');
    expect([missing.status, await missing.json()]).toEqual([
      404,
      { error: 'not_found', message: 'sandbox gone not found in namespace team' },
    ]);
    const bobs = await api(deps).request('/sandboxes/box/files', { headers: { 'x-user': 'bob' } });
    expect([bobs.status, await bobs.json()]).toEqual([
      403,
      { error: 'forbidden', message: 'sandbox box belongs to another user' },
    ]);
    const noPath = await api(deps).request('/sandboxes/box/files');
    expect(noPath.status).toBe(400);
  });

  it('leaves the paths of other groups alone', async () => {
    const { deps, lookups } = fakeDeps([]);
    const res = await api(deps).request('/sandboxes/box/usage');
    expect([res.status, await res.json()]).toEqual([200, { other: 'box' }]);
    expect(lookups).toEqual([]);
  });
});

describe('onOwnedSandbox with activity: false', () => {
  /** A sandbox last used an hour ago, and the writes of its activity annotation, counted. */
  function idle() {
    const old = sandbox('box', 'alice');
    old.metadata.annotations = { 'svc.io/last-activity': new Date(Date.now() - 3_600_000).toISOString() };
    const { deps } = fakeDeps([old]);
    const patches: string[] = [];
    (deps.sandboxes as { mergePatch: unknown }).mergePatch = (_ns: string, name: string) => {
      patches.push(name);
      return Promise.resolve(undefined);
    };
    return { deps, patches };
  }
  const app = (deps: ApiDeps, opts: { activity?: boolean }) => {
    const group = new Hono<OnSandbox>();
    onOwnedSandbox(group, deps, [listing], opts);
    route(group, listing, (c, { query }, reply) =>
      reply.json(200, { path: `${c.var.sandbox.metadata.name}:${query.path}`, entries: [] }),
    );
    const root = new Hono();
    root.use('*', async (c, next) => {
      c.set('caller', { user: 'alice', groups: [], isAdmin: false, via: 'api-key' });
      await next();
    });
    root.route('/', group);
    return root;
  };

  it('looks the sandbox up without counting the look as its use (usage); by default it counts', async () => {
    const quiet = idle();
    const res = await app(quiet.deps, { activity: false }).request('/sandboxes/box/files?path=/w');
    expect([res.status, await res.json()]).toEqual([200, { path: 'box:/w', entries: [] }]);
    expect(quiet.patches).toEqual([]);
    const used = idle();
    expect((await app(used.deps, {}).request('/sandboxes/box/files?path=/w')).status).toBe(200);
    expect(used.patches).toEqual(['box']);
  });
});

describe('requireRunning', () => {
  it('passes a Running sandbox; any other is a 409 naming its phase and what needs it', () => {
    expect(() => requireRunning(sandbox('box', 'alice'), 'exec')).not.toThrow();
    expect(() => requireRunning(sandbox('box', 'alice', 'Stopped'), 'files and archives', 'need')).toThrow(
      expect.objectContaining({
        status: 409,
        code: 'not_running',
        message: 'sandbox box is Stopped; files and archives need it Running',
        extra: { phase: 'Stopped' },
      }),
    );
  });
});
