import type { Context } from 'hono';
import { Annotations, type Sandbox } from '../../core/index.ts';
import type { Caller } from '../auth/index.ts';
import { forbidden, notFound } from '../errors/index.ts';
import type { ApiDeps } from '../deps.ts';

/** What looking up a request's sandbox reads: the cache, else the apiserver; and its activity. */
export type SandboxLookup = Pick<ApiDeps, 'defaultNamespace' | 'cache' | 'sandboxes' | 'clock' | 'logger'>;

/** The namespace a request addresses: `?namespace=`, else the deployment's default. */
export function requestNamespace(c: Context, deps: Pick<ApiDeps, 'defaultNamespace'>): string {
  return c.req.query('namespace') || deps.defaultNamespace;
}

/**
 * 404 when `namespace` does not exist. Reads are served from the cache, where a missing
 * namespace looks like an empty one; callers ask only when they found nothing, so a read
 * that found something costs no request.
 */
export async function requireNamespace(deps: Pick<ApiDeps, 'namespaces'>, namespace: string): Promise<void> {
  if ((await deps.namespaces.check(namespace)).missing) throw notFound(`namespaces "${namespace}" not found`);
}

export function canAccess(caller: Caller, sandbox: Sandbox): boolean {
  return caller.isAdmin || sandbox.spec.createdBy === caller.user;
}

/**
 * The sandbox `{id}` names, if the caller may act on it: 404 when it does not exist,
 * 403 when it belongs to someone else. Every sandbox endpoint goes through here.
 *
 * A Running sandbox comes from the cache. Any other is read afresh: the cache may be a
 * moment behind a phase change that a watcher (kubectl, a client's wait) has already seen,
 * and an operation that needs `Running` must not answer 409 for a sandbox that is.
 */
export async function ownedSandbox(
  c: Context,
  deps: SandboxLookup,
  /** `activity: false`: a look that is no use of the sandbox (its usage), not counted for idleTimeout. */
  opts: { activity?: boolean } = {},
): Promise<Sandbox> {
  const namespace = requestNamespace(c, deps);
  const name = c.req.param('id') ?? '';
  const cached = deps.cache.get(namespace, name);
  const sandbox = cached?.status?.phase === 'Running' ? cached : await deps.sandboxes.read(namespace, name);
  if (!sandbox || sandbox.metadata.deletionTimestamp)
    throw notFound(`sandbox ${name} not found in namespace ${namespace}`);
  if (!canAccess(c.var.caller, sandbox)) throw forbidden(`sandbox ${name} belongs to another user`);
  if (opts.activity !== false) recordActivity(deps, sandbox);
  return sandbox;
}

/**
 * Marks the sandbox active for `idleTimeout`, at most once a minute so that a busy
 * sandbox does not turn every read into a write. Best effort: a failure is only logged.
 */
export function recordActivity(
  deps: Pick<ApiDeps, 'clock' | 'sandboxes' | 'logger'>,
  sandbox: Sandbox,
): void {
  const now = deps.clock();
  const last = Date.parse(sandbox.metadata.annotations?.[Annotations.lastActivity] ?? '');
  if (Number.isFinite(last) && now.getTime() - last < 60_000) return;
  const { namespace = '', name = '' } = sandbox.metadata;
  deps.sandboxes
    .mergePatch(namespace, name, {
      metadata: { annotations: { [Annotations.lastActivity]: now.toISOString() } },
    })
    .catch((err: unknown) =>
      deps.logger.warn({ err, sandbox: `${namespace}/${name}` }, 'recording activity failed'),
    );
}
