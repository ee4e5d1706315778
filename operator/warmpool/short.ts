// Why a pool is short of ready members, from what its members' Pods already say: the
// scheduler's refusal (PodScheduled False, Unschedulable: not enough CPU, memory or Pods on
// any node) or a container that cannot start (an image that cannot be pulled, a container
// the runtime will not create, one in a crash loop). A pool that cannot fill says so in its
// Ready condition, so that `kubectl describe` (and a bench waiting on it) shows the cause,
// not only "3 of 20 members ready".
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';

export interface Short {
  reason: 'Unschedulable' | 'MemberFailing';
  message: string;
}

/** Waiting reasons of a container on its way up: nothing is wrong yet. */
const STARTING = new Set(['ContainerCreating', 'PodInitializing']);

/** The first cause found among the members that are not ready, or undefined when none shows one. */
export function whyShort(members: readonly V1Pod[]): Short | undefined {
  const unschedulable = members.flatMap((pod) => {
    const c = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    return c?.status === 'False' && c.reason === 'Unschedulable' ? [{ pod, message: c.message ?? '' }] : [];
  });
  if (unschedulable.length > 0) {
    const first = unschedulable[0]!;
    return {
      reason: 'Unschedulable',
      message: `${unschedulable.length} member(s) cannot be scheduled (${first.pod.metadata?.name}: ${first.message.trim()})`,
    };
  }
  for (const pod of members) {
    const statuses: V1ContainerStatus[] = [
      ...(pod.status?.initContainerStatuses ?? []),
      ...(pod.status?.containerStatuses ?? []),
    ];
    const stuck = statuses.find((s) => s.state?.waiting?.reason && !STARTING.has(s.state.waiting.reason));
    if (stuck) {
      const w = stuck.state!.waiting!;
      return {
        reason: 'MemberFailing',
        message: `member ${pod.metadata?.name}: container ${stuck.name} ${w.reason}${w.message ? `: ${w.message}` : ''}`,
      };
    }
  }
  return undefined;
}
