import type { z } from 'zod';
import {
  type PresentedSandbox as PresentedSandboxSchema,
  type Sandbox,
  type SandboxSpec,
} from '../../core/index.ts';
import { PolicyMalformedError } from '../../kube/index.ts';
import type { Caller } from '../auth/index.ts';
import { HttpError, notFound, policyViolation } from '../errors/index.ts';
import type { SandboxesDeps } from './deps.ts';
import { templateNotFound } from './templates.ts';

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
 * `reserved`: a quota slot was reserved, for the caller to release once the Sandbox is written.
 */
export async function admitCreate(
  deps: SandboxesDeps,
  input: { user: string; namespace: string; name: string; spec: SandboxSpec; caller: Caller },
): Promise<{ reserved: boolean }> {
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
  const { violations, reserved } = await deps.governance.decideCreate(input, read).catch(malformed);
  if (violations.length > 0) throw policyViolation(violations);
  return { reserved };
}

/**
 * Admission of an update that changes a governed field (the API's own: `spec.ports`): the
 * new spec judged like a create against the policy in force, without the quotas, refusing
 * only what the update brings (see `Governance.checkUpdate`): 403 `policy_violation`.
 */
export async function admitUpdate(deps: SandboxesDeps, sandbox: Sandbox, after: SandboxSpec): Promise<void> {
  const violations = await deps.governance
    .checkUpdate({ namespace: sandbox.metadata.namespace ?? '', before: sandbox.spec, after })
    .catch((err: unknown) => {
      if (err instanceof PolicyMalformedError) throw new HttpError(500, 'policy_malformed', err.message);
      throw err;
    });
  if (violations.length > 0) throw policyViolation(violations);
}
