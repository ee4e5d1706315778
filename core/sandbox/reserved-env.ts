/**
 * sandboxd reads its settings (`SANDBOXD_TOKEN`, `SANDBOXD_LISTEN`, …) from variables of this
 * prefix, and the sandbox's own token among them: a Sandbox's environment may not set any.
 */
export const SANDBOXD_ENV_PREFIX = 'SANDBOXD_';

/** A name the sandbox may not set, at `path` under `spec`. */
export interface ReservedEnvIssue {
  path: (string | number)[];
  message: string;
}

/**
 * Every variable of `spec.env` and `spec.credentials.env` that would set one of sandboxd's
 * own settings, with where it is. The API answers them as a 400, the webhook as a denial.
 */
export function reservedEnvIssues(spec: {
  env?: readonly { name: string }[];
  credentials?: { env?: readonly { name: string }[] };
}): ReservedEnvIssue[] {
  const issues: ReservedEnvIssue[] = [];
  const scan = (list: readonly { name: string }[] | undefined, at: string[]) =>
    list?.forEach((e, i) => {
      if (typeof e?.name === 'string' && e.name.startsWith(SANDBOXD_ENV_PREFIX))
        issues.push({
          path: [...at, i, 'name'],
          message: `${e.name} is reserved: variables starting with ${SANDBOXD_ENV_PREFIX} are settings of sandboxd, which the sandbox must not override`,
        });
    });
  scan(spec.env, ['env']);
  scan(spec.credentials?.env, ['credentials', 'env']);
  return issues;
}
