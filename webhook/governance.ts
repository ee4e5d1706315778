import { SandboxSpec } from '../core/index.ts';
import { PolicyMalformedError, type Governance } from '../kube/index.ts';
import type { AdmissionRequest, Verdict } from './review.ts';

/**
 * Governance for direct CR writes (kubectl, GitOps): the same rules and the same quota
 * ledger as the API, so a create through either path counts against the other.
 */
export function governanceAdmission(governance: Governance): (request: AdmissionRequest) => Promise<Verdict> {
  return async function admitCreate(request) {
    const metadata = (request.object?.metadata ?? {}) as { name?: string };
    const parsed = SandboxSpec.safeParse(request.object?.spec ?? {});
    if (!parsed.success || !metadata.name || !request.namespace) return { allowed: true }; // the schema refuses it
    const spec = parsed.data;
    try {
      const violations = await governance.checkCreate({
        user: spec.createdBy ?? request.userInfo.username ?? '',
        namespace: request.namespace,
        name: metadata.name,
        spec,
        // `kubectl --dry-run=server`: judged, but the Sandbox is never written, so no slot held.
        dryRun: request.dryRun === true,
      });
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
