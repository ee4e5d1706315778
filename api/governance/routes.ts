import { Hono } from 'hono';
import { NamespaceName, Policy } from '../../core/index.ts';
import { requireAdmin } from '../auth/index.ts';
import type { ApiDeps } from '../deps.ts';
import { HttpError, notFound, validationError } from '../errors/index.ts';
import { PolicyMalformedError } from '../../kube/index.ts';
import { readJson } from '../sandboxes/index.ts';

/**
 * Governance policies. Writes and the full listing are admin-only: 401 when the deployment
 * cannot have admins (no OIDC issuer, no devAuth: fail-closed), 403 for a non-admin. What
 * applies in a namespace is readable by any authenticated caller.
 */
export function governanceRoutes(deps: ApiDeps): Hono {
  const app = new Hono();
  const governance = deps.governance;
  const admin = new Hono();
  admin.use(requireAdmin(deps.auth, 'governance policies are admin only'));

  const parsePolicy = async (req: Request) => {
    const parsed = Policy.safeParse(await readJson(req));
    if (!parsed.success) throw validationError(parsed.error);
    return parsed.data;
  };
  const parseNamespace = (value: string) => {
    const parsed = NamespaceName.safeParse(value);
    if (!parsed.success) throw validationError(parsed.error, 'namespace');
    return parsed.data;
  };

  admin.get('/', async (c) => c.json(await malformedAs500(governance.store.read())));
  admin.put('/', async (c) => {
    const policy = await parsePolicy(c.req.raw);
    await governance.store.put(policy);
    return c.json(policy);
  });
  admin.put('/:namespace', async (c) => {
    const namespace = parseNamespace(c.req.param('namespace'));
    const policy = await parsePolicy(c.req.raw);
    await governance.store.put(policy, namespace);
    return c.json(policy);
  });
  admin.delete('/:namespace', async (c) => {
    const namespace = parseNamespace(c.req.param('namespace'));
    if (!(await governance.store.remove(namespace)))
      throw notFound(`no policy override for namespace ${namespace}`);
    return c.body(null, 204);
  });

  app.route('/policies', admin);
  app.get('/effective', async (c) => {
    const namespace = parseNamespace(c.req.query('namespace') || deps.defaultNamespace);
    return c.json({ namespace, policy: await malformedAs500(governance.effective(namespace)) });
  });
  return app;
}

/** A malformed stored policy is reported loudly, never read as "no limits". */
async function malformedAs500<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof PolicyMalformedError) throw new HttpError(500, 'policy_malformed', err.message);
    throw err;
  }
}
