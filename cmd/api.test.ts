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
});
