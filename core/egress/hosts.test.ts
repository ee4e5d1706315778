import { describe, expect, it } from 'vitest';
import { AllowedHost, covers, hostAllowed, normalizeHost, parseRule, uncovered } from './hosts.ts';

describe('AllowedHost', () => {
  it.each([
    'pypi.org',
    '*.pythonhosted.org',
    'api.example.com:443',
    'localhost',
    'a-b.c9.io:65535',
    'xn--bcher-kva.example',
  ])('takes %s', (entry) => expect(AllowedHost.safeParse(entry).success).toBe(true));
  it.each([
    '',
    '10.0.0.1',
    '10.0.0.1:443',
    '[::1]',
    '::1',
    'pypi.org.',
    'PyPI.org',
    '*.',
    '*',
    '**.example.com',
    'a.*.example.com',
    '*example.com',
    'example.com:0',
    'example.com:65536',
    'example.com:',
    'http://example.com',
    'example.com/path',
    '-a.example.com',
    'a-.example.com',
    'example.123',
    `${'a'.repeat(64)}.com`,
    `${'a.'.repeat(126)}com`,
  ])('refuses %j', (entry) => expect(AllowedHost.safeParse(entry).success).toBe(false));
});

describe('parseRule', () => {
  it('takes an entry apart', () => {
    expect(parseRule('*.example.com:443')).toEqual({ name: 'example.com', wildcard: true, port: 443 });
    expect(parseRule('pypi.org')).toEqual({ name: 'pypi.org', wildcard: false });
  });
});

describe('normalizeHost', () => {
  it('lowers the case and drops one trailing dot', () => {
    expect(normalizeHost('PyPI.Org.')).toBe('pypi.org');
    expect(normalizeHost('pypi.org')).toBe('pypi.org');
  });
  it.each(['10.0.0.1', '127.0.0.1', '[::1]', '::1', 'pypi.org..', '', '.', 'a b.com', 'example.com:443'])(
    'is no host name: %j',
    (host) => expect(normalizeHost(host)).toBeUndefined(),
  );
});

describe('hostAllowed', () => {
  const list = ['pypi.org', '*.pythonhosted.org', 'api.example.com:443'];
  it('an exact name on any port', () => {
    expect(hostAllowed(list, 'pypi.org', 443)).toBe(true);
    expect(hostAllowed(list, 'pypi.org', 80)).toBe(true);
    expect(hostAllowed(list, 'www.pypi.org', 443)).toBe(false);
    expect(hostAllowed(list, 'evilpypi.org', 443)).toBe(false);
  });
  it('a wildcard: every name below, never the name itself', () => {
    expect(hostAllowed(list, 'files.pythonhosted.org', 443)).toBe(true);
    expect(hostAllowed(list, 'a.b.pythonhosted.org', 443)).toBe(true);
    expect(hostAllowed(list, 'pythonhosted.org', 443)).toBe(false);
    expect(hostAllowed(list, 'evilpythonhosted.org', 443)).toBe(false);
  });
  it('a port: only that port', () => {
    expect(hostAllowed(list, 'api.example.com', 443)).toBe(true);
    expect(hostAllowed(list, 'api.example.com', 80)).toBe(false);
  });
  it('case and a trailing dot do not matter', () => {
    expect(hostAllowed(list, 'PYPI.ORG', 443)).toBe(true);
    expect(hostAllowed(list, 'pypi.org.', 443)).toBe(true);
    expect(hostAllowed(list, 'Files.PythonHosted.org.', 443)).toBe(true);
  });
  it('an IP literal is never allowed, whatever the list', () => {
    expect(hostAllowed(['*.1'], '10.0.0.1', 443)).toBe(false);
    expect(hostAllowed(list, '[::1]', 443)).toBe(false);
  });
  it('nothing is allowed by an empty list', () => {
    expect(hostAllowed([], 'pypi.org', 443)).toBe(false);
  });
});

describe('covers', () => {
  it.each([
    ['pypi.org', 'pypi.org', true],
    ['pypi.org', 'pypi.org:443', true],
    ['pypi.org:443', 'pypi.org:443', true],
    ['pypi.org:443', 'pypi.org', false],
    ['pypi.org:443', 'pypi.org:80', false],
    ['pypi.org', '*.pypi.org', false],
    ['*.example.com', 'a.example.com', true],
    ['*.example.com', '*.a.example.com', true],
    ['*.example.com', '*.example.com', true],
    ['*.example.com', 'example.com', false],
    ['*.example.com:443', 'a.example.com', false],
    ['*.example.com:443', 'a.example.com:443', true],
    ['a.example.com', '*.example.com', false],
  ] as const)('%s covers %s: %s', (outer, inner, expected) => expect(covers(outer, inner)).toBe(expected));

  it('uncovered lists what widens, in order', () => {
    expect(
      uncovered(['*.example.com', 'pypi.org'], ['pypi.org:443', 'evil.com', 'a.example.com', 'x.io']),
    ).toEqual(['evil.com', 'x.io']);
  });
});
