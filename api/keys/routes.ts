import { Hono } from 'hono';
import { CreateApiKeyRequest } from '../../core/index.ts';
import { adminCapable } from '../auth/index.ts';
import { forbidden, notFound, unauthenticated, validationError } from '../errors/index.ts';
import type { ApiDeps } from '../deps.ts';
import { readJson } from '../sandboxes/index.ts';

/** Admin-only management of API keys: create (the key is shown once), list, revoke. */
export function keyRoutes(deps: ApiDeps): Hono {
  const app = new Hono();
  app.use(async function adminOnly(c, next) {
    if (!adminCapable(deps.auth))
      throw unauthenticated('admin endpoints are disabled: no OIDC issuer and no devAuth');
    if (!c.var.caller.isAdmin) throw forbidden('admin only');
    await next();
  });
  app.get('/', async (c) => c.json({ items: await deps.keys.list() }));
  app.post('/', async (c) => {
    const parsed = CreateApiKeyRequest.safeParse(await readJson(c.req.raw));
    if (!parsed.success) throw validationError(parsed.error);
    const { key, record } = await deps.keys.create(parsed.data);
    return c.json({ key, ...record }, 201);
  });
  app.delete('/:keyId', async (c) => {
    if (!(await deps.keys.revoke(c.req.param('keyId')))) throw notFound('no such API key');
    return c.body(null, 204);
  });
  return app;
}
