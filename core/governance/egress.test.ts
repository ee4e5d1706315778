import { describe, expect, it } from 'vitest';
import { checkCreate, type Candidate, type Counts } from './check.ts';

const none: Counts = { byUser: 0, total: 0, agents: 0 };
const allowlist: Candidate = {
  mode: 'code',
  templateName: 'web',
  egress: 'allowlist',
  templateAllowedHosts: ['pypi.org', '*.pythonhosted.org', 'api.example.com:443'],
};
const refused = (message: string) => [{ code: 'egress_host_not_allowed', message }];

describe('checkCreate: egress allowlists', () => {
  it("a Sandbox may narrow its template's list", () => {
    const own = ['pypi.org:443', 'files.pythonhosted.org', 'api.example.com:443'];
    expect(checkCreate({}, { ...allowlist, sandboxAllowedHosts: own }, none)).toEqual([]);
    expect(checkCreate({}, { ...allowlist, sandboxAllowedHosts: [] }, none)).toEqual([]);
  });

  it('never widen it', () => {
    const own = ['pypi.org', 'evil.com', 'pythonhosted.org', 'api.example.com'];
    expect(checkCreate({}, { ...allowlist, sandboxAllowedHosts: own }, none)).toEqual(
      refused(
        "egress hosts [evil.com, pythonhosted.org, api.example.com] are not in the template's allowedHosts [pypi.org, *.pythonhosted.org, api.example.com:443]",
      ),
    );
  });

  it('a list of its own needs an allowlist template', () => {
    const c: Candidate = { mode: 'code', templateName: 'web', sandboxAllowedHosts: ['pypi.org'] };
    expect(checkCreate({}, c, none)).toEqual(
      refused(
        "a Sandbox may set network.allowedHosts only with a template whose egress is allowlist; this template's is internet",
      ),
    );
  });

  it('allowedEgressHosts is a ceiling over the effective list', () => {
    const policy = { allowedEgressHosts: ['pypi.org', '*.pythonhosted.org'] };
    expect(checkCreate(policy, allowlist, none)).toEqual(
      refused(
        'egress hosts [api.example.com:443] are not in allowedEgressHosts [pypi.org, *.pythonhosted.org]',
      ),
    );
    // Narrowed inside the ceiling, the same template's sandbox passes.
    const narrowed = { ...allowlist, sandboxAllowedHosts: ['pypi.org', 'files.pythonhosted.org:443'] };
    expect(checkCreate(policy, narrowed, none)).toEqual([]);
  });

  it('under a ceiling, internet and all are refused, none is not', () => {
    const policy = { allowedEgressHosts: ['pypi.org'] };
    const base: Candidate = { mode: 'code', templateName: 'web' };
    expect(checkCreate(policy, base, none)).toEqual(
      refused(
        'egress: internet reaches any host; allowedEgressHosts [pypi.org] allows only none or allowlist',
      ),
    );
    expect(checkCreate(policy, { ...base, egress: 'all' }, none)).toEqual(
      refused('egress: all reaches any host; allowedEgressHosts [pypi.org] allows only none or allowlist'),
    );
    expect(checkCreate(policy, { ...base, egress: 'none' }, none)).toEqual([]);
  });

  it('without a ceiling, every template egress passes as before', () => {
    for (const egress of ['none', 'internet', 'all', 'allowlist'] as const)
      expect(checkCreate({}, { mode: 'code', templateName: 'web', egress }, none)).toEqual([]);
  });
});
