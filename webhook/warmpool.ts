import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import {
  GROUP,
  SandboxWarmPoolSpec,
  VERSION,
  checkCreate,
  type SandboxTemplateSpec,
  type Violation,
} from '../core/index.ts';
import { PolicyMalformedError, candidateOf, type Governance } from '../kube/index.ts';
import type { AdmissionRequest, Verdict } from './review.ts';

/** Counts are not a pool's business: members count against no quota until claimed. */
const QUOTA_CODES = new Set<Violation['code']>([
  'namespace_quota_exceeded',
  'user_quota_exceeded',
  'agent_sandbox_quota_exceeded',
]);

/**
 * A SandboxWarmPool is admitted only when a Sandbox made from it would be: its template,
 * image (and the template's limits) pass the namespace's policy. Quotas are left out: a
 * member counts against none until a Sandbox claims it, and that Sandbox is admitted itself.
 */
export function warmPoolAdmission(
  kc: KubeConfig,
  governance: Governance,
): (request: AdmissionRequest) => Promise<Verdict> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const template = async (namespace: string, kind: string, name: string) => {
    try {
      const obj = (
        kind === 'SandboxTemplate'
          ? await custom.getNamespacedCustomObject({
              group: GROUP,
              version: VERSION,
              namespace,
              plural: 'sandboxtemplates',
              name,
            })
          : await custom.getClusterCustomObject({
              group: GROUP,
              version: VERSION,
              plural: 'clustersandboxtemplates',
              name,
            })
      ) as { spec: SandboxTemplateSpec };
      return obj.spec;
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
  };
  return async (request) => {
    if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return { allowed: true };
    const parsed = SandboxWarmPoolSpec.safeParse(request.object?.spec ?? {});
    if (!parsed.success || !request.namespace) return { allowed: true }; // the schema refuses it
    const pool = parsed.data;
    try {
      const policy = await governance.effective(request.namespace);
      const spec = {
        mode: pool.mode,
        templateRef: pool.templateRef,
        stopped: false,
        ...(pool.image?.repository ? { image: { repository: pool.image.repository } } : {}),
      };
      const t = await template(request.namespace, pool.templateRef.kind, pool.templateRef.name);
      const none = { byUser: 0, total: 0, agents: 0 };
      const violations = checkCreate(policy, candidateOf(spec, t), none, governance.nodes).filter(
        (v) => !QUOTA_CODES.has(v.code),
      );
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
