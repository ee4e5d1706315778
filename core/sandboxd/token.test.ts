import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { sandboxdToken, ticketKey } from './token.ts';

describe('sandboxdToken', () => {
  const key = Buffer.alloc(32, 7);
  const sandbox = { namespace: 'team-a', name: 'hello', uid: '6f1c2a3e-0000-4000-8000-000000000001' };

  test('is base64url of HMAC-SHA256(key, namespace/name/uid), the same every time', () => {
    const token = sandboxdToken(key, sandbox);
    expect(token).toBe(sandboxdToken(Buffer.from(key), { ...sandbox }));
    expect(token).toBe(
      createHmac('sha256', key)
        .update('team-a/hello/6f1c2a3e-0000-4000-8000-000000000001')
        .digest('base64url'),
    );
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test('differs by namespace, name, uid and key', () => {
    const token = sandboxdToken(key, sandbox);
    const others = [
      sandboxdToken(key, { ...sandbox, namespace: 'team-b' }),
      sandboxdToken(key, { ...sandbox, name: 'hello2' }),
      sandboxdToken(key, { ...sandbox, uid: '6f1c2a3e-0000-4000-8000-000000000002' }),
      sandboxdToken(Buffer.alloc(32, 8), sandbox),
    ];
    expect(new Set([token, ...others]).size).toBe(others.length + 1);
  });

  test('refuses an empty key or a missing uid', () => {
    expect(() => sandboxdToken(Buffer.alloc(0), sandbox)).toThrow(/key is empty/);
    expect(() => sandboxdToken(key, { ...sandbox, uid: '' })).toThrow(/uid/);
  });
});

describe('ticketKey', () => {
  const key = Buffer.alloc(32, 7);

  test('is HKDF-SHA256 of the installation key, one per purpose, none equal to a sandbox token', () => {
    const keys = ['terminal', 'preview', 'preview-session'].map((p) => ticketKey(key, p));
    expect(keys.map((k) => k.length)).toEqual([32, 32, 32]);
    expect(new Set(keys.map((k) => k.toString('hex'))).size).toBe(3);
    expect(ticketKey(key, 'preview').equals(ticketKey(Buffer.from(key), 'preview'))).toBe(true);
    expect(ticketKey(Buffer.alloc(32, 8), 'preview').equals(ticketKey(key, 'preview'))).toBe(false);
    const token = sandboxdToken(key, { namespace: 'team-a', name: 'hello', uid: 'u' });
    for (const k of keys) expect(k.toString('base64url')).not.toBe(token);
  });

  test('refuses an empty key', () => {
    expect(() => ticketKey(Buffer.alloc(0), 'preview')).toThrow(/key is empty/);
  });
});
