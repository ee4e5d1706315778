import type { Context } from 'hono';
import type { z } from 'zod';
import {
  Annotations,
  type PresentedSandbox as PresentedSandboxSchema,
  type Sandbox,
  type SandboxSpec,
} from '../../core/index.ts';
import { PolicyMalformedError } from '../../kube/index.ts';
import type { Caller } from '../auth/index.ts';
import { HttpError, forbidden, notFound, policyViolation } from '../errors/index.ts';
import type { ApiDeps } from '../deps.ts';
import { templateNotFound } from './templates.ts';

/** The namespace a request addresses: `?namespace=`, else the deployment's default. */
export function requestNamespace(c: Context, deps: ApiDeps): string {
  return c.req.query('namespace') || deps.defaultNamespace;
}

/**
 * 404 when `namespace` does not exist. Reads are served from the cache, where a missing
 * namespace looks like an empty one; callers ask only when they found nothing, so a read
 * that found something costs no request.
 */
export async function requireNamespace(deps: ApiDeps, namespace: string): Promise<void> {
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
  deps: ApiDeps,
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
export function recordActivity(deps: ApiDeps, sandbox: Sandbox): void {
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

/** A Sandbox as the API answers with it: also `sandboxId` (its name), `name` and `namespace` on top. */
export type PresentedSandbox = z.input<typeof PresentedSandboxSchema>;

/**
 * What the API returns for a Sandbox: the resource without server bookkeeping, plus the
 * top-level `sandboxId`, `name` and `namespace` the spec's origin's clients read. Until the
 * operator's first status write the phase is `Pending`, as the spec says a GET shows it.
 */
export function present(sandbox: Sandbox): PresentedSandbox {
  const { metadata } = sandbox;
  return {
    sandboxId: metadata.name ?? '',
    name: metadata.name ?? '',
    namespace: metadata.namespace ?? '',
    apiVersion: sandbox.apiVersion,
    kind: sandbox.kind,
    metadata: {
      name: metadata.name ?? '',
      namespace: metadata.namespace ?? '',
      uid: metadata.uid,
      resourceVersion: metadata.resourceVersion,
      generation: metadata.generation,
      creationTimestamp: metadata.creationTimestamp,
      ...(metadata.deletionTimestamp ? { deletionTimestamp: metadata.deletionTimestamp } : {}),
      ...(metadata.labels ? { labels: metadata.labels } : {}),
      ...(metadata.annotations ? { annotations: metadata.annotations } : {}),
    },
    spec: sandbox.spec,
    status: { ...sandbox.status, phase: sandbox.status?.phase ?? 'Pending' },
  };
}

/**
 * Admission of a create or a clone: the namespace must exist (404) and be enabled for
 * sandboxes (403 `namespace_not_enabled`); 400 `template_not_found` for a template that
 * does not exist; every credential must be the caller's to use (403
 * `credential_not_allowed`; a missing Secret or key: 400 `credential_not_found`); 409
 * `name_conflict` when an object the sandbox would need by name is someone else's; then
 * governance, which reserves quota last: 403 `policy_violation` listing every violation.
 */
export async function admitCreate(
  deps: ApiDeps,
  input: { user: string; namespace: string; name: string; spec: SandboxSpec; caller: Caller },
): Promise<void> {
  const malformed = (err: unknown) => {
    if (err instanceof PolicyMalformedError) throw new HttpError(500, 'policy_malformed', err.message);
    throw err;
  };
  // Every read starts at once (each is a round trip to the apiserver); the checks still
  // decide in their order, and only the quota reservation, a write, waits for all of them.
  const settled = <T>(p: Promise<T>) => (p.catch(() => undefined), p);
  const gate = settled(deps.namespaces.check(input.namespace));
  const reads = settled(deps.governance.readForCreate(input));
  const credentials = settled(deps.credentials.check(input.caller, input.namespace, input.spec));
  const names = settled(deps.names.requireFree(input));
  const namespace = await gate;
  if (namespace.missing) throw notFound(`namespaces "${input.namespace}" not found`);
  if (namespace.refusal) throw policyViolation([namespace.refusal]);
  const read = await reads.catch(malformed);
  if (!read.template) await templateNotFound(deps, input.namespace, input.spec.templateRef).catch(malformed);
  const { violations: refused, missing: absent } = await credentials;
  if (refused.length > 0) throw policyViolation(refused);
  if (absent.length > 0)
    throw new HttpError(400, 'credential_not_found', absent.join('; '), { extra: { missing: absent } });
  await names;
  const violations = await deps.governance.checkCreate(input, read).catch(malformed);
  if (violations.length > 0) throw policyViolation(violations);
}

/**
 * Admission of an update that changes a governed field (the API's own: `spec.ports`): the
 * new spec judged like a create against the policy in force, without the quotas, refusing
 * only what the update brings (see `Governance.checkUpdate`): 403 `policy_violation`.
 */
export async function admitUpdate(deps: ApiDeps, sandbox: Sandbox, after: SandboxSpec): Promise<void> {
  const violations = await deps.governance
    .checkUpdate({ namespace: sandbox.metadata.namespace ?? '', before: sandbox.spec, after })
    .catch((err: unknown) => {
      if (err instanceof PolicyMalformedError) throw new HttpError(500, 'policy_malformed', err.message);
      throw err;
    });
  if (violations.length > 0) throw policyViolation(violations);
}
