import type { V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Sandbox, SandboxWarmPool } from '../../core/index.ts';
import type { Informer } from '../../kube/index.ts';
import { isReadyMember, matches, servesRuntimeClass, withMember } from './fit.ts';

const pool = {
  apiVersion: 'svc.io/v1alpha1',
  kind: 'SandboxWarmPool',
  metadata: { name: 'p', namespace: 'ns' },
  spec: { templateRef: { kind: 'ClusterSandboxTemplate', name: 'default' }, mode: 'code', size: 1 },
} as unknown as SandboxWarmPool;

const sandbox = (spec: Partial<Sandbox['spec']> = {}): Sandbox => ({
  apiVersion: 'svc.io/v1alpha1',
  kind: 'Sandbox',
  metadata: { name: 's', namespace: 'ns' },
  spec: {
    mode: 'code',
    templateRef: { kind: 'ClusterSandboxTemplate', name: 'default' },
    stopped: false,
    ...spec,
  },
});

const member = (runtimeClassName?: string): V1Pod => ({
  metadata: { name: 'm' },
  spec: { containers: [], ...(runtimeClassName ? { runtimeClassName } : {}) },
});

describe('matches', () => {
  it('fits a sandbox of the same template, mode and image', () => {
    expect(matches(pool, sandbox())).toBe(true);
    expect(matches(pool, sandbox({ mode: 'agent' }))).toBe(false);
  });

  it('fits no sandbox of another template, template kind or image', () => {
    expect(matches(pool, sandbox({ templateRef: { kind: 'ClusterSandboxTemplate', name: 'other' } }))).toBe(
      false,
    );
    expect(matches(pool, sandbox({ templateRef: { kind: 'SandboxTemplate', name: 'default' } }))).toBe(false);
    expect(matches(pool, sandbox({ image: { repository: 'ghcr.io/me/agent' } }))).toBe(false);
    const imaged = { ...pool, spec: { ...pool.spec, image: { repository: 'ghcr.io/me/agent' } } };
    expect(matches(imaged, sandbox({ image: { repository: 'ghcr.io/me/agent' } }))).toBe(true);
    expect(matches(imaged, sandbox())).toBe(false);
  });

  it('an image without a repository is the template image, as no image is', () => {
    expect(matches(pool, sandbox({ image: {} }))).toBe(true);
  });

  it('a pool being deleted fits nothing', () => {
    const leaving = { ...pool, metadata: { ...pool.metadata, deletionTimestamp: new Date() } };
    expect(matches(leaving, sandbox())).toBe(false);
  });

  it('never fits a sandbox that names its own runtime class (a pool has none of its own)', () => {
    expect(matches(pool, sandbox({ runtimeClassName: 'gvisor' }))).toBe(false);
  });
});

describe('servesRuntimeClass', () => {
  it("serves only a sandbox whose effective runtime class is the member Pod's", () => {
    expect(servesRuntimeClass(member(), undefined)).toBe(true);
    expect(servesRuntimeClass(member('gvisor'), 'gvisor')).toBe(true);
    expect(servesRuntimeClass(member(), 'gvisor')).toBe(false);
    expect(servesRuntimeClass(member('gvisor'), undefined)).toBe(false);
    expect(servesRuntimeClass(member('gvisor'), 'kata')).toBe(false);
  });
});

describe('isReadyMember', () => {
  const uid = 'pool-uid';
  const owner = (u = uid) => [
    { apiVersion: 'v1', kind: 'SandboxWarmPool', name: 'p', uid: u, controller: true },
  ];
  const ready = (over: Partial<V1Pod['metadata']> = {}, readyStatus = 'True'): V1Pod => ({
    metadata: { name: 'm', namespace: 'ns', ownerReferences: owner(), ...over },
    status: { conditions: [{ type: 'Ready', status: readyStatus }] },
  });
  const claims = (claim?: V1PersistentVolumeClaim) =>
    ({
      get: (name: string, namespace?: string) =>
        claim && name === claim.metadata?.name && namespace === claim.metadata?.namespace ? claim : undefined,
    }) as unknown as Informer<V1PersistentVolumeClaim>;
  const claim = (phase = 'Bound', ownerReferences = owner()): V1PersistentVolumeClaim => ({
    metadata: { name: 'm-workspace', namespace: 'ns', ownerReferences },
    status: { phase },
  });

  it('a Ready Pod with its bound claim, both the pool', () => {
    expect(isReadyMember(ready(), claims(claim()))).toBe(true);
  });

  it('not while its Pod is not Ready or going away', () => {
    expect(isReadyMember(ready({}, 'False'), claims(claim()))).toBe(false);
    expect(isReadyMember(ready({ deletionTimestamp: new Date() }), claims(claim()))).toBe(false);
  });

  it('not while its claim is missing or unbound', () => {
    expect(isReadyMember(ready(), claims())).toBe(false);
    expect(isReadyMember(ready(), claims(claim('Pending')))).toBe(false);
  });

  it("never with a claim of the member's name that another controller owns, or a Pod with no controller", () => {
    expect(isReadyMember(ready(), claims(claim('Bound', owner('someone-else'))))).toBe(false);
    expect(isReadyMember(ready({ ownerReferences: [] }), claims(claim('Bound', [])))).toBe(false);
  });
});

describe('withMember', () => {
  it('names the member in a copy, keeping the other annotations', () => {
    const s = sandbox();
    s.metadata.annotations = { keep: 'me' };
    const named = withMember(s, 'm');
    expect(named.metadata.annotations).toEqual({ keep: 'me', 'svc.io/warm-member': 'm' });
    expect(s.metadata.annotations).toEqual({ keep: 'me' });
  });
});
