import { Hono } from 'hono';
import { requireAdmin } from '../auth/index.ts';
import type { GovernanceDeps } from './deps.ts';
import { HttpError, notFound } from '../errors/index.ts';
import { PolicyMalformedError } from '../../kube/index.ts';
import { route } from '../openapi/index.ts';
import {
  deleteNamespacePolicy,
  getEffectivePolicy,
  getPolicies,
  setClusterPolicy,
  setNamespacePolicy,
} from './operations.ts';

/**
 * Governance policies. Writes and the full listing are admin-only: 401 when the deployment
 * cannot have admins (no OIDC issuer, no devAuth: fail-closed), 403 for a non-admin. What
 * applies in a namespace is readable by any authenticated caller.
 */
export function governanceRoutes(deps: GovernanceDeps): Hono {
  const app = new Hono();
  const governance = deps.governance;
  // Every method on /governance/policies and below, before its body is read (`/*` covers
  // the bare path too); `{namespace}` was checked before (api/validation's pathParams).
  app.use('/governance/policies/*', requireAdmin(deps.auth, 'governance policies are admin only'));

  route(app, getPolicies, async (_, __, reply) =>
    reply.json(200, await malformedAs500(governance.store.read())),
  );
  route(app, setClusterPolicy, async (_, { body }, reply) => {
    await governance.store.put(body);
    return reply.json(200, body);
  });
  route(app, setNamespacePolicy, async (c, { body }, reply) => {
    await governance.store.put(body, c.req.param('namespace'));
    return reply.json(200, body);
  });
  route(app, deleteNamespacePolicy, async (c, _, reply) => {
    const namespace = c.req.param('namespace') ?? '';
    if (!(await governance.store.remove(namespace)))
      throw notFound(`no policy override for namespace ${namespace}`);
    return reply.empty(204);
  });

  route(app, getEffectivePolicy, async (_, { query }, reply) => {
    const namespace = query.namespace ?? deps.defaultNamespace;
    return reply.json(200, { namespace, policy: await malformedAs500(governance.effective(namespace)) });
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
