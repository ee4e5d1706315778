import { Hono } from 'hono';
import { requireAdmin } from '../auth/index.ts';
import { notFound } from '../errors/index.ts';
import type { KeysDeps } from './deps.ts';
import { route } from '../openapi/index.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './operations.ts';

/** Admin-only management of API keys: create (the key is shown once), list, revoke. */
export function keyRoutes(deps: KeysDeps): Hono {
  const app = new Hono();
  const adminOnly = requireAdmin(deps.auth, 'admin only');
  app.use('/apikeys', adminOnly);
  app.use('/apikeys/*', adminOnly);
  route(app, listApiKeys, async (_, __, reply) => reply.json(200, { items: await deps.keys.list() }));
  route(app, createApiKey, async (_, { body }, reply) => {
    const { key, record } = await deps.keys.create(body);
    return reply.json(201, { key, ...record });
  });
  route(app, revokeApiKey, async (c, _, reply) => {
    if (!(await deps.keys.revoke(c.req.param('keyId') ?? ''))) throw notFound('no such API key');
    return reply.empty(204);
  });
  return app;
}
