import { z } from 'zod';

/** The parts of an admission.k8s.io/v1 AdmissionReview request that svc reads. */
export const AdmissionReview = z.object({
  apiVersion: z.literal('admission.k8s.io/v1'),
  kind: z.literal('AdmissionReview'),
  request: z.object({
    uid: z.string(),
    kind: z.object({ group: z.string(), version: z.string(), kind: z.string() }),
    namespace: z.string().optional(),
    operation: z.enum(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']),
    userInfo: z.object({ username: z.string().optional(), groups: z.array(z.string()).optional() }),
    object: z.record(z.string(), z.unknown()).nullable().optional(),
    oldObject: z.record(z.string(), z.unknown()).nullable().optional(),
    dryRun: z.boolean().optional(),
  }),
});
export type AdmissionRequest = z.infer<typeof AdmissionReview>['request'];

/**
 * Whether the request was made by `account` (the API's ServiceAccount, which writes for its
 * callers and has applied its own rules for them); never when no account is configured.
 */
export function madeBy(request: AdmissionRequest, account: string | undefined): boolean {
  return account !== undefined && account !== '' && request.userInfo.username === account;
}

export interface Verdict {
  allowed: boolean;
  /** Shown to the writer; carries the violation codes. */
  message?: string;
  /** Machine reason, such as `policy_violation` or `immutable_field`. */
  reason?: string;
  patch?: object[];
  warnings?: string[];
}

/** The AdmissionReview response for a verdict. */
export function respond(uid: string, verdict: Verdict): object {
  const response: Record<string, unknown> = { uid, allowed: verdict.allowed };
  if (!verdict.allowed) {
    response.status = { code: 403, reason: 'Forbidden', message: verdict.message ?? 'denied' };
  }
  if (verdict.patch && verdict.patch.length > 0) {
    response.patchType = 'JSONPatch';
    response.patch = Buffer.from(JSON.stringify(verdict.patch)).toString('base64');
  }
  if (verdict.warnings?.length) response.warnings = verdict.warnings;
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response };
}
