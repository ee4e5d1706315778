import type { V1Pod, V1PodStatus } from '@kubernetes/client-node';
import { describe, expect, test } from 'vitest';
import { whyShort } from './short.ts';

const pod = (name: string, status: V1PodStatus): V1Pod => ({ metadata: { name }, status });

describe('whyShort', () => {
  test("a member the scheduler refuses: Unschedulable, with the scheduler's message", () => {
    const refused = pod('tti-a', {
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: '0/1 nodes are available: 1 Insufficient cpu. ',
        },
      ],
    });
    expect(whyShort([pod('tti-b', { phase: 'Pending' }), refused, refused])).toEqual({
      reason: 'Unschedulable',
      message: '2 member(s) cannot be scheduled (tti-a: 0/1 nodes are available: 1 Insufficient cpu.)',
    });
  });

  test('a container that cannot start: MemberFailing, naming the member and the container', () => {
    const pulling = pod('tti-c', {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'True' }],
      initContainerStatuses: [
        {
          name: 'svc-install',
          image: 'x',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: 'ErrImagePull', message: 'not found' } },
        },
      ],
    });
    expect(whyShort([pulling])).toEqual({
      reason: 'MemberFailing',
      message: 'member tti-c: container svc-install ErrImagePull: not found',
    });
  });

  test('members on their way up (scheduled, containers creating) show no cause', () => {
    const starting = pod('tti-d', {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'True' }],
      initContainerStatuses: [
        {
          name: 'svc-install',
          image: 'x',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: 'PodInitializing' } },
        },
      ],
      containerStatuses: [
        {
          name: 'sandbox',
          image: 'x',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: 'ContainerCreating' } },
        },
      ],
    });
    expect(whyShort([starting, pod('tti-e', {})])).toBeUndefined();
  });
});
