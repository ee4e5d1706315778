import { describe, expect, test } from 'vitest';
import type { Sandbox } from '../../core/index.ts';
import { installPending } from './running.ts';

const agent = (
  status?: Partial<NonNullable<Sandbox['status']>>,
  entrypoint = ['sh', 'agent.sh'],
): Sandbox => ({
  apiVersion: 'svc.io/v1alpha1',
  kind: 'Sandbox',
  metadata: { name: 'copy', namespace: 'ns' },
  spec: {
    mode: 'agent',
    templateRef: { kind: 'ClusterSandboxTemplate', name: 'default' },
    stopped: false,
    cloneFromSnapshot: 'snap',
    harness: { agent: { workingDir: '/workspace', entrypoint } },
  },
  ...(status ? { status: status } : {}),
});

describe('installPending', () => {
  test('a clone of a configured agent sandbox waits for its install on the way to Running', () => {
    expect(installPending(agent())).toBe(true);
    expect(installPending(agent({ phase: 'Creating' }))).toBe(true);
    // Stopped before its install finished, then resumed: it waits again.
    expect(installPending(agent({ phase: 'Stopped' }))).toBe(true);
  });

  test('an install recorded (even a failed one) lets it run', () => {
    const recorded = { installCommandHash: 'h', entrypoint: ['sh'], installExitCode: 1 };
    expect(installPending(agent({ phase: 'Creating', agentConfigure: recorded }))).toBe(false);
  });

  test('a Running sandbox stays Running while a first configure installs', () => {
    expect(installPending(agent({ phase: 'Running' }))).toBe(false);
  });

  test('no entrypoint in its spec, or a code sandbox: nothing to wait for', () => {
    expect(installPending(agent(undefined, []))).toBe(false);
    const code = agent();
    expect(installPending({ ...code, spec: { ...code.spec, mode: 'code' } })).toBe(false);
    expect(installPending({ ...code, spec: { ...code.spec, harness: undefined } })).toBe(false);
  });
});
