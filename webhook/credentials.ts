import { isDeepStrictEqual } from 'node:util';
import { Credentials } from '../core/index.ts';
import type { Governance, NamespaceGate, SecretAccessReviewer, SnapshotOwners } from '../kube/index.ts';
import { governanceAdmission } from './governance.ts';
import { reservedEnvAdmission } from './reserved-env.ts';
import { snapshotAdmission } from './snapshots.ts';
import { madeBy, type AdmissionRequest, type Verdict } from './review.ts';

const deny = (violations: { code: string; message: string }[]): Verdict => ({
  allowed: false,
  reason: 'policy_violation',
  message: `policy_violation: ${violations.map((v) => `${v.code}: ${v.message}`).join('; ')}`,
});

/**
 * `spec.credentials` written straight to the apiserver (create, or an update that changes
 * them): allowed only when the requesting user may `get` every Secret named, as a
 * SubjectAccessReview says; the service's own and token Secrets never. The API's own
 * ServiceAccount passes: it has already applied its own rule for its caller.
 */
export function credentialAdmission(
  reviewer: SecretAccessReviewer,
  opts: { apiServiceAccount?: string },
): (request: AdmissionRequest) => Promise<Verdict> {
  return async function admitCredentials(request) {
    const spec = (request.object?.spec ?? {}) as { credentials?: unknown };
    const parsed = Credentials.safeParse(spec.credentials ?? {});
    if (!parsed.success || !request.namespace) return { allowed: true }; // the schema refuses it
    if (request.operation === 'UPDATE') {
      const old = (request.oldObject?.spec ?? {}) as { credentials?: unknown };
      if (isDeepStrictEqual(old.credentials, spec.credentials)) return { allowed: true };
    }
    if (madeBy(request, opts.apiServiceAccount)) return { allowed: true };
    const user = request.userInfo.username ?? '';
    const violations = await reviewer.check(
      { user, groups: request.userInfo.groups ?? [] },
      request.namespace,
      { credentials: parsed.data },
    );
    return violations.length === 0 ? { allowed: true } : deny(violations);
  };
}

/** Sandboxes are created only in namespaces enabled for them, by the API and kubectl alike. */
export function namespaceAdmission(gate: NamespaceGate): (request: AdmissionRequest) => Promise<Verdict> {
  return async function admitNamespace(request) {
    if (!request.namespace) return { allowed: true };
    const found = await gate.check(request.namespace);
    if (found.missing) return { allowed: true }; // the apiserver refuses a missing namespace itself
    return found.refusal ? deny([found.refusal]) : { allowed: true };
  };
}

/** The checks in order; the first refusal is the verdict. */
export function firstRefusal(
  ...checks: ((request: AdmissionRequest) => Promise<Verdict>)[]
): (request: AdmissionRequest) => Promise<Verdict> {
  return async (request) => {
    for (const check of checks) {
      const verdict = await check(request);
      if (!verdict.allowed) return verdict;
    }
    return { allowed: true };
  };
}

/**
 * What `svc webhook` checks beyond immutability. On create: the namespace, sandboxd's own
 * variables, credentials, the snapshot a clone names, then governance (last, because it
 * reserves quota: only a create nothing else refuses counts). On update: the same checks
 * where the update changes their fields, governance without quotas (see
 * `governanceAdmission`). The API's own ServiceAccount is not governed again (nor are its
 * credentials and snapshots): the API has just checked its write against the same policy
 * and reserved its quota slot in the same ledger (the spec's "in the API and, when
 * enabled, in the admission webhook").
 */
export function sandboxAdmission(o: {
  governance: Governance;
  namespaces: NamespaceGate;
  reviewer: SecretAccessReviewer;
  snapshots: SnapshotOwners;
  apiServiceAccount?: string;
}): {
  admitCreate: (r: AdmissionRequest) => Promise<Verdict>;
  admitUpdate: (r: AdmissionRequest) => Promise<Verdict>;
} {
  const opts = { apiServiceAccount: o.apiServiceAccount };
  const credentials = credentialAdmission(o.reviewer, opts);
  const snapshots = snapshotAdmission(o.snapshots, opts);
  const governance = governanceAdmission(o.governance);
  const governed = async (request: AdmissionRequest) =>
    madeBy(request, o.apiServiceAccount) ? { allowed: true } : governance(request);
  return {
    admitCreate: firstRefusal(
      namespaceAdmission(o.namespaces),
      reservedEnvAdmission,
      credentials,
      snapshots,
      governed,
    ),
    admitUpdate: firstRefusal(reservedEnvAdmission, credentials, snapshots, governed),
  };
}
