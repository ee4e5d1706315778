import { describe, expect, test, vi } from 'vitest';
import { main } from './api.ts';

describe('svc api settings', () => {
  test('audit.includeInvokePayloads: true is refused with a clear message', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await main(['--audit.includeInvokePayloads', 'true'])).toBe(2);
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toBe(
        'svc api: --audit.includeInvokePayloads: is not available in this version: argv and stdin are never recorded; remove the setting\n',
      );
    } finally {
      stderr.mockRestore();
    }
  });

  test('auth.oidc.algorithms takes asymmetric algorithms only: HS256 and none are refused', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await main(['--auth.oidc.algorithms', 'RS256,HS256,none'])).toBe(2);
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toBe(
        'svc api: --auth.oidc.algorithms: HS256, none not allowed: one or more of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519 (asymmetric only, never none or HS*)\n',
      );
    } finally {
      stderr.mockRestore();
    }
  });
});
