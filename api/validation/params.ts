import type { MiddlewareHandler } from 'hono';
import { NamespaceQuery, PathParams, type PathParamName } from '../../core/index.ts';
import { validationError } from '../errors/index.ts';

/**
 * Checks the named path parameters of the route it is mounted on against their schemas
 * (core/api/params.ts): a 400 naming the field before any handler, and so before any call
 * to the cluster. Hono has decoded the parameters, so `%2F` arrives here as `/` and is
 * refused like a literal one.
 */
export function pathParams(...names: PathParamName[]): MiddlewareHandler {
  return async function validatePathParams(c, next) {
    for (const name of names) {
      const parsed = PathParams[name].safeParse(c.req.param(name) ?? '');
      if (!parsed.success) throw validationError(parsed.error, name);
    }
    await next();
  };
}

/**
 * Checks `?namespace=` where present (every value, should it be repeated): 400 when it is
 * not a Kubernetes namespace name. Absent means the deployment's default namespace.
 */
export function namespaceQuery(): MiddlewareHandler {
  return async function validateNamespaceQuery(c, next) {
    for (const namespace of c.req.queries('namespace') ?? []) {
      const parsed = NamespaceQuery.safeParse({ namespace });
      if (!parsed.success) throw validationError(parsed.error);
    }
    await next();
  };
}
