import { describe, expect, it } from 'vitest';
import { mayUseSecret, namespaceRefusal, referencedSecrets, reservedSecretReason } from './credentials.ts';

const alice = { user: 'alice', groups: ['team-a'], isAdmin: false };

describe('credentials', () => {
  it('lists each Secret once with the keys env entries read', () => {
    expect(
      referencedSecrets({
        credentials: {
          env: [
            { name: 'A', secretName: 's', key: 'k1' },
            { name: 'B', secretName: 's', key: 'k2' },
            { name: 'C', secretName: 's', key: 'k1' },
          ],
          files: [
            { secretName: 't', mountPath: '/t' },
            { secretName: 's', mountPath: '/s' },
          ],
        },
      }),
    ).toEqual([
      { secretName: 's', keys: ['k1', 'k2'] },
      { secretName: 't', keys: [] },
    ]);
    expect(referencedSecrets({})).toEqual([]);
  });

  it('reserves the service’s Secrets and token Secrets by name', () => {
    expect(reservedSecretReason('svc-sandboxd-key')).toMatch(/service's own/);
    expect(reservedSecretReason('svc-api-keys')).toMatch(/service's own/);
    expect(reservedSecretReason('box-sandboxd')).toMatch(/sandboxd token/);
    expect(reservedSecretReason('sandboxd-notes')).toBeUndefined();
  });

  it('lets the owner, listed users and groups and admins use a Secret; a sandbox’s never', () => {
    const label = 'svc.io/sandbox';
    expect(mayUseSecret({ labels: { 'svc.io/owner': 'alice' } }, alice, label)).toBe(true);
    expect(mayUseSecret({ labels: { 'svc.io/owner': 'bob' } }, alice, label)).toBe(false);
    expect(mayUseSecret({ annotations: { 'svc.io/allowed-users': 'carol, alice' } }, alice, label)).toBe(
      true,
    );
    expect(mayUseSecret({ annotations: { 'svc.io/allowed-users': 'alicex' } }, alice, label)).toBe(false);
    expect(mayUseSecret({ annotations: { 'svc.io/allowed-groups': 'x,team-a' } }, alice, label)).toBe(true);
    expect(mayUseSecret({}, alice, label)).toBe(false);
    expect(mayUseSecret({}, { ...alice, isAdmin: true }, label)).toBe(true);
    const token = { labels: { [label]: 'box', 'svc.io/owner': 'alice' } };
    expect(mayUseSecret(token, { ...alice, isAdmin: true }, label)).toBe(false);
  });

  it('enables only labelled namespaces, never the service’s or kube-system', () => {
    const on = { 'svc.io/sandboxes': 'enabled' };
    expect(namespaceRefusal('team', on, 'svc-system')).toBeUndefined();
    expect(namespaceRefusal('team', {}, 'svc-system')).toMatch(/not enabled/);
    expect(namespaceRefusal('team', { 'svc.io/sandboxes': 'yes' }, 'svc-system')).toMatch(/not enabled/);
    expect(namespaceRefusal('svc-system', on, 'svc-system')).toMatch(/can never/);
    expect(namespaceRefusal('kube-system', on, 'svc-system')).toMatch(/can never/);
  });
});
