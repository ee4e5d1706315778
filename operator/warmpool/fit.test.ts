import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Sandbox, SandboxWarmPool } from '../../core/index.ts';
import { matches, servesRuntimeClass } from './fit.ts';

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
