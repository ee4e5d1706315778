import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { Annotations } from '../../core/index.ts';
import { sandboxdAddressOf } from './locate.ts';

const pod = (annotations: Record<string, string>, podIP?: string): V1Pod => ({
  metadata: { name: 'web', namespace: 'team-a', annotations },
  status: podIP ? { podIP } : {},
});

describe('sandboxdAddressOf', () => {
  const annotated = { [Annotations.sandboxdAddress]: '169.254.169.254:80' };

  it('outside devnode mode is the Pod IP and port 9000, whatever the Pod’s annotation says', () => {
    expect(sandboxdAddressOf(pod(annotated, '10.0.0.7'))).toBe('10.0.0.7:9000');
    expect(sandboxdAddressOf(pod(annotated, '10.0.0.7'), { devnode: false })).toBe('10.0.0.7:9000');
    expect(sandboxdAddressOf(pod(annotated))).toBeUndefined();
  });

  it('in devnode mode is the address devnode recorded, else the Pod IP', () => {
    const socket = { [Annotations.sandboxdAddress]: 'unix:/run/devnode/web.sock' };
    expect(sandboxdAddressOf(pod(socket, '10.0.0.7'), { devnode: true })).toBe('unix:/run/devnode/web.sock');
    expect(sandboxdAddressOf(pod({}, '10.0.0.7'), { devnode: true })).toBe('10.0.0.7:9000');
  });
});
