import { describe, expect, it } from 'vitest';
import { checkImmutable } from './immutable.ts';
import { setCreatedBy } from './created-by.ts';
import type { AdmissionRequest } from './review.ts';

const base = {
  mode: 'code',
  templateRef: { name: 'default', kind: 'ClusterSandboxTemplate' },
  createdBy: 'alice',
};

describe('checkImmutable', () => {
  it.each([
    ['mode', { ...base, mode: 'agent' }],
    ['templateRef', { ...base, templateRef: { name: 'minimal', kind: 'ClusterSandboxTemplate' } }],
    ['createdBy', { ...base, createdBy: 'bob' }],
    ['cloneFromSnapshot', { ...base, cloneFromSnapshot: 'b' }],
  ])('denies a change to %s with the code', (field, next) => {
    const verdict = checkImmutable({ ...base, cloneFromSnapshot: 'a' }, { cloneFromSnapshot: 'a', ...next });
    expect(verdict).toEqual({
      allowed: false,
      reason: 'immutable_field',
      message: `immutable_field: spec.${field} cannot be changed after creation`,
    });
  });

  it('denies removing a set field, names every changed field, allows setting an unset one', () => {
    expect(checkImmutable(base, { ...base, createdBy: undefined }).allowed).toBe(false);
    expect(checkImmutable(base, { ...base, mode: 'agent', createdBy: 'x' }).message).toBe(
      'immutable_field: spec.mode, spec.createdBy cannot be changed after creation',
    );
    expect(checkImmutable({ mode: 'code' }, { mode: 'code', createdBy: 'alice' }).allowed).toBe(true);
    expect(checkImmutable(base, { ...base, stopped: true }).allowed).toBe(true);
  });
});

const request = (user: string, spec?: object): AdmissionRequest => ({
  uid: 'u',
  kind: { group: 'svc.io', version: 'v1alpha1', kind: 'Sandbox' },
  operation: 'CREATE',
  userInfo: { username: user },
  object: spec === undefined ? { metadata: {} } : { spec },
});

describe('setCreatedBy', () => {
  it('overwrites createdBy with the requesting user, with a warning', () => {
    expect(setCreatedBy(request('alice', { createdBy: 'mallory' }), {})).toEqual({
      allowed: true,
      patch: [{ op: 'add', path: '/spec/createdBy', value: 'alice' }],
      warnings: ['spec.createdBy set to alice (the authenticated user), not mallory'],
    });
  });

  it('adds a spec when there is none, and leaves a correct value alone', () => {
    expect(setCreatedBy(request('alice'), {}).patch).toEqual([
      { op: 'add', path: '/spec', value: { createdBy: 'alice' } },
    ]);
    expect(setCreatedBy(request('alice', { createdBy: 'alice' }), {})).toEqual({ allowed: true });
  });

  it('trusts only the API ServiceAccount to set createdBy for its caller', () => {
    const sa = 'system:serviceaccount:svc-system:svc-api';
    expect(setCreatedBy(request(sa, { createdBy: 'bob' }), { apiServiceAccount: sa })).toEqual({
      allowed: true,
    });
    expect(setCreatedBy(request(sa, {}), { apiServiceAccount: sa }).patch).toEqual([
      { op: 'add', path: '/spec/createdBy', value: sa },
    ]);
  });
});
