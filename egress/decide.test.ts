import { describe, expect, it } from 'vitest';
import { decide, type Asker } from './decide.ts';
import { parseAuthority } from './gateway.ts';

const asker: Asker = {
  namespace: 'team',
  sandbox: 'x',
  template: 'ClusterSandboxTemplate/web',
  allowedHosts: ['pypi.org', '*.pythonhosted.org', 'api.example.com:443'],
};

describe('decide', () => {
  it('allows a host on the list, on its port', () => {
    expect(decide(asker, { host: 'pypi.org', port: 443 }, '10.0.0.7')).toEqual({ allowed: true });
    expect(decide(asker, { host: 'files.pythonhosted.org', port: 80 }, '10.0.0.7')).toEqual({
      allowed: true,
    });
    expect(decide(asker, { host: 'api.example.com', port: 443 }, '10.0.0.7')).toEqual({ allowed: true });
  });

  it('refuses a host off the list with the line the tool shows', () => {
    expect(decide(asker, { host: 'api.evil.com', port: 443 }, '10.0.0.7')).toEqual({
      allowed: false,
      reason: 'svc egress: api.evil.com is not allowed for sandbox x',
    });
    expect(decide(asker, { host: 'api.example.com', port: 8443 }, '10.0.0.7')).toEqual({
      allowed: false,
      reason: 'svc egress: api.example.com is not allowed for sandbox x',
    });
  });

  it('refuses an IP address, even one a name on the list resolves to', () => {
    expect(decide(asker, { host: '151.101.0.223', port: 443 }, '10.0.0.7')).toEqual({
      allowed: false,
      reason: 'svc egress: 151.101.0.223 is not allowed for sandbox x',
    });
  });

  it('refuses a TLS server name that is not the tunnel host, even one on the list', () => {
    expect(decide(asker, { host: 'pypi.org', port: 443, sni: 'files.pythonhosted.org' }, '10.0.0.7')).toEqual(
      {
        allowed: false,
        reason:
          'svc egress: TLS server name files.pythonhosted.org is not pypi.org, the host the tunnel was opened to, for sandbox x',
      },
    );
    expect(decide(asker, { host: 'pypi.org', port: 443, sni: 'PyPI.org.' }, '10.0.0.7')).toEqual({
      allowed: true,
    });
  });

  it('refuses a source that is no sandbox', () => {
    expect(decide(undefined, { host: 'pypi.org', port: 443 }, '10.0.0.9')).toEqual({
      allowed: false,
      reason: 'svc egress: pypi.org is not allowed for 10.0.0.9: no sandbox has that address',
    });
  });
});

describe('parseAuthority', () => {
  it('takes host:port apart', () => {
    expect(parseAuthority('pypi.org:443')).toEqual({ host: 'pypi.org', port: 443 });
    expect(parseAuthority('PyPI.org:443')).toEqual({ host: 'pypi.org', port: 443 });
  });
  it.each([undefined, '', 'pypi.org', 'pypi.org:', 'user@pypi.org:443', 'pypi.org:443/x', 'pypi.org:99999'])(
    'refuses %j',
    (authority) => expect(parseAuthority(authority)).toBeUndefined(),
  );
});
