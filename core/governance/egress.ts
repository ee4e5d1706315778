import { uncovered } from '../egress/index.ts';
import type { Candidate } from './check.ts';
import type { Policy } from './policy.ts';
import type { Violation } from './violations.ts';

const list = (entries: readonly string[]) => `[${entries.join(', ')}]`;

/**
 * Where a sandbox may connect, judged at create and update: a Sandbox's own `allowedHosts`
 * only narrow an `allowlist` template's (every entry inside one of the template's), and
 * `allowedEgressHosts`, when set, is a ceiling: the effective list must lie inside it, and a
 * template whose egress is `internet` or `all` (any host at all) is refused under it.
 */
export function checkEgress(policy: Pick<Policy, 'allowedEgressHosts'>, c: Candidate): Violation[] {
  const v: Violation[] = [];
  const add = (message: string) => v.push({ code: 'egress_host_not_allowed', message });
  const egress = c.egress ?? 'internet';
  const template = c.templateAllowedHosts ?? [];
  const own = c.sandboxAllowedHosts;
  const wider = own === undefined ? [] : uncovered(template, own);
  if (own !== undefined && egress !== 'allowlist') {
    add(
      `a Sandbox may set network.allowedHosts only with a template whose egress is allowlist; this template's is ${egress}`,
    );
  } else if (wider.length > 0) {
    add(`egress hosts ${list(wider)} are not in the template's allowedHosts ${list(template)}`);
  }
  const ceiling = policy.allowedEgressHosts;
  if (ceiling === undefined) return v;
  if (egress === 'internet' || egress === 'all') {
    add(
      `egress: ${egress} reaches any host; allowedEgressHosts ${list(ceiling)} allows only none or allowlist`,
    );
  } else if (egress === 'allowlist') {
    // An entry already refused as wider than the template is not named twice.
    const outside = uncovered(ceiling, own ?? template).filter((e) => !wider.includes(e));
    if (outside.length > 0)
      add(`egress hosts ${list(outside)} are not in allowedEgressHosts ${list(ceiling)}`);
  }
  return v;
}
