import { madeBy, type AdmissionRequest, type Verdict } from './review.ts';

/**
 * Sets `spec.createdBy` on create from the user the apiserver authenticated, whatever the
 * YAML said. The API's own ServiceAccount is the exception: it writes on behalf of its
 * caller and has already set createdBy from that caller's identity.
 */
export function setCreatedBy(request: AdmissionRequest, opts: { apiServiceAccount?: string }): Verdict {
  if (request.operation !== 'CREATE') return { allowed: true };
  const user = request.userInfo.username ?? '';
  const spec = (request.object?.spec ?? {}) as Record<string, unknown>;
  if (madeBy(request, opts.apiServiceAccount) && typeof spec.createdBy === 'string') {
    return { allowed: true };
  }
  if (!user) return { allowed: false, reason: 'unauthenticated', message: 'the request carries no user' };
  if (spec.createdBy === user) return { allowed: true };
  // JSON Patch `add` replaces an existing member too, so one op covers both cases.
  const patch =
    request.object?.spec === undefined
      ? [{ op: 'add', path: '/spec', value: { createdBy: user } }]
      : [{ op: 'add', path: '/spec/createdBy', value: user }];
  const warnings =
    typeof spec.createdBy === 'string'
      ? [`spec.createdBy set to ${user} (the authenticated user), not ${spec.createdBy}`]
      : [];
  return { allowed: true, patch, warnings };
}
