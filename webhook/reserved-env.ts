import { isDeepStrictEqual } from 'node:util';
import { reservedEnvIssues } from '../core/index.ts';
import type { AdmissionRequest, Verdict } from './review.ts';

type EnvSpec = Parameters<typeof reservedEnvIssues>[0];

/** `[0]` for indexes, `.x` for names: `spec.env[0].name`, as the API's 400s name fields. */
const fieldPath = (path: (string | number)[]) =>
  path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : `${acc}.${p}`), 'spec');

/**
 * A Sandbox's environment may not set sandboxd's own variables (`SANDBOXD_*`, its token
 * among them), whoever writes it. Judged on create, and on an update that changes the
 * environment: one made before this rule still updates (its Pod drops those names anyway).
 */
export function reservedEnvAdmission(request: AdmissionRequest): Promise<Verdict> {
  const spec = (request.object?.spec ?? {}) as EnvSpec;
  if (request.operation === 'UPDATE') {
    const old = (request.oldObject?.spec ?? {}) as EnvSpec;
    if (
      isDeepStrictEqual(old.env, spec.env) &&
      isDeepStrictEqual(old.credentials?.env, spec.credentials?.env)
    )
      return Promise.resolve({ allowed: true });
  }
  const issues = reservedEnvIssues({
    env: Array.isArray(spec.env) ? spec.env : undefined,
    credentials: { env: Array.isArray(spec.credentials?.env) ? spec.credentials.env : undefined },
  });
  if (issues.length === 0) return Promise.resolve({ allowed: true });
  return Promise.resolve({
    allowed: false,
    reason: 'invalid_request',
    message: `invalid_request: ${issues.map((i) => `${fieldPath(i.path)}: ${i.message}`).join('; ')}`,
  });
}
