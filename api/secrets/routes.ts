import { Hono } from 'hono';
import { reservedSecretReason } from '../../core/index.ts';
import { HttpError, notFound, policyViolation } from '../errors/index.ts';
import type { SecretsDeps } from './deps.ts';
import { route } from '../openapi/index.ts';
import { createSecret, deleteSecret, listSecrets } from './operations.ts';
import { requestNamespace } from '../request/index.ts';

/**
 * A user's own Secrets for `spec.credentials`: create (values write-only), list (names and
 * keys) and delete, in a namespace enabled for sandboxes (`?namespace=`, as for sandboxes).
 * Non-admins see and delete only their own; admins see everyone's.
 */
export function secretRoutes(deps: SecretsDeps): Hono {
  const app = new Hono();

  const enabledNamespace = async (namespace: string) => {
    const gate = await deps.namespaces.check(namespace);
    if (gate.missing) throw notFound(`namespaces "${namespace}" not found`);
    if (gate.refusal) throw policyViolation([gate.refusal]);
    return namespace;
  };

  // The hook's 400 names fields only, never the values zod refused.
  route(app, createSecret, async (c, { body }, reply) => {
    const { name, data } = body;
    const reserved = reservedSecretReason(name);
    if (reserved) throw new HttpError(400, 'reserved_name', `${reserved}: choose another name`);
    const namespace = await enabledNamespace(requestNamespace(c, deps));
    const created = await deps.secrets.create({ namespace, name, owner: c.var.caller.user, data });
    return reply.json(201, created);
  });

  route(app, listSecrets, async (c, _, reply) => {
    const namespace = await enabledNamespace(requestNamespace(c, deps));
    const caller = c.var.caller;
    return reply.json(200, {
      items: await deps.secrets.list(namespace, caller.isAdmin ? undefined : caller.user),
    });
  });

  route(app, deleteSecret, async (c, _, reply) => {
    const name = c.req.param('secretName') ?? '';
    const namespace = requestNamespace(c, deps);
    const missing = () => notFound(`secret ${name} not found in namespace ${namespace}`);
    await enabledNamespace(namespace);
    const secret = await deps.secrets.read(namespace, name);
    // Another user's Secret is as invisible as a missing one.
    if (!secret || (!c.var.caller.isAdmin && secret.owner !== c.var.caller.user)) throw missing();
    await deps.secrets.delete(namespace, name);
    return reply.empty(204);
  });

  return app;
}
