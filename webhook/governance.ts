import { isDeepStrictEqual } from 'node:util';
import { SandboxSpec, type Violation } from '../core/index.ts';
import { PolicyMalformedError, type Governance } from '../kube/index.ts';
import type { AdmissionRequest, Verdict } from './review.ts';

/**
 * The spec fields governance judges (directly, or through the template's defaults they
 * override). An update that changes none of them (stop, resume, an annotation, the
 * operator's finalizer) is not governed, and reads nothing.
 */
export const GOVERNED_FIELDS = ['image', 'resources', 'timeout', 'idleTimeout', 'ports', 'network'] as const;

/**
 * Governance for direct CR writes (kubectl, GitOps): the same rules and the same quota
 * ledger as the API, so a create through either path counts against the other. An update
 * that changes a governed field is judged like a create against the policy in force, minus
 * the quotas (the sandbox counts already): see `Governance.checkUpdate`.
 */
export function governanceAdmission(governance: Governance): (request: AdmissionRequest) => Promise<Verdict> {
  return async function admitGovernance(request) {
    const metadata = (request.object?.metadata ?? {}) as { name?: string };
    const parsed = SandboxSpec.safeParse(request.object?.spec ?? {});
    if (!parsed.success || !metadata.name || !request.namespace) return { allowed: true }; // the schema refuses it
    const spec = parsed.data;
    try {
      let violations: Violation[];
      if (request.operation === 'UPDATE') {
        const old = (request.oldObject?.spec ?? {}) as Record<string, unknown>;
        const now = request.object?.spec as Record<string, unknown>;
        if (GOVERNED_FIELDS.every((f) => isDeepStrictEqual(old[f], now[f]))) return { allowed: true };
        const before = SandboxSpec.safeParse(old);
        violations = await governance.checkUpdate({
          namespace: request.namespace,
          before: before.success ? before.data : undefined,
          after: spec,
        });
      } else {
        violations = await governance.checkCreate({
          user: spec.createdBy ?? request.userInfo.username ?? '',
          namespace: request.namespace,
          name: metadata.name,
          spec,
          // `kubectl --dry-run=server`: judged, but the Sandbox is never written, so no slot held.
          dryRun: request.dryRun === true,
        });
      }
      if (violations.length === 0) return { allowed: true };
      return {
        allowed: false,
        reason: 'policy_violation',
        message: `policy_violation: ${violations.map((v) => `${v.code}: ${v.message}`).join('; ')}`,
      };
    } catch (err) {
      if (err instanceof PolicyMalformedError)
        return { allowed: false, reason: 'policy_malformed', message: err.message };
      throw err;
    }
  };
}
