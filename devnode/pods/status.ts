import type { V1Container, V1ContainerState, V1ContainerStatus, V1PodStatus } from '@kubernetes/client-node';

/** How a container's process ended, as the kubelet reports it. */
export interface Termination {
  exitCode: number;
  reason: string;
  startedAt: Date;
  finishedAt: Date;
}

/** What devnode knows of one container: the input of its status. */
export interface ContainerState {
  name: string;
  restartCount: number;
  running?: { startedAt: Date; pid?: number };
  terminated?: Termination;
  /** The run before a restart (the kubelet's `lastState`). */
  last?: Termination;
  /** Why it does not run now although it ran (a restart's back-off: `crashLoopBackOff`). */
  waiting?: { reason: string; message: string };
  ready: boolean;
}

/**
 * A container waiting out its back-off before a restart, as the kubelet reports it: reason
 * `CrashLoopBackOff`, message `back-off 10s restarting failed container=main pod=name_ns(uid)`,
 * the delay in Go's duration format (its `format.Pod` names the Pod).
 */
export function crashLoopBackOff(
  backoffMs: number,
  container: string,
  pod: { name: string; namespace: string; uid: string },
): { reason: 'CrashLoopBackOff'; message: string } {
  return {
    reason: 'CrashLoopBackOff',
    message: `back-off ${goDuration(backoffMs)} restarting failed container=${container} pod=${pod.name}_${pod.namespace}(${pod.uid})`,
  };
}

/** A duration as Go's `time.Duration.String()` writes one of a second or more: 30s, 1m0s, 1h2m3s. */
function goDuration(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = `${(ms % 60_000) / 1000}s`;
  return h > 0 ? `${h}h${m}m${s}` : m > 0 ? `${m}m${s}` : s;
}

/** When a Pod condition last flipped, and to what. */
export interface Transition {
  ok: boolean;
  at: Date;
}

export interface PodStatusInput {
  initContainers: V1Container[];
  containers: V1Container[];
  /** By container name; every container of the spec has one. */
  states: ReadonlyMap<string, ContainerState>;
  /** Why devnode gave up on the Pod (setup failed, an init container failed for good). */
  failed: string | undefined;
  /** Every init container completed. */
  initialized: boolean;
  startTime: Date;
  podIP: string;
  /** The previous status's transitions: a condition that did not flip keeps its time. */
  transitions: ReadonlyMap<string, Transition>;
  now: Date;
}

/**
 * The Pod's status as the kubelet would write it, from what devnode knows: pure, so every
 * mapping (phase, conditions, container states, restart counts) is tested without a Pod.
 * Returns the transitions to pass to the next call.
 */
export function podStatus(input: PodStatusInput): {
  status: V1PodStatus;
  transitions: Map<string, Transition>;
} {
  const toStatus = (c: V1Container) => containerStatus(c, input.states.get(c.name)!, input.failed);
  const containers = input.containers.map(toStatus);
  const allReady = containers.every((c) => c.ready);
  const allDone = containers.every((c) => c.state?.terminated);
  const phase = input.failed
    ? 'Failed'
    : !input.initialized
      ? 'Pending'
      : allDone
        ? containers.every((c) => c.state?.terminated?.exitCode === 0)
          ? 'Succeeded'
          : 'Failed'
        : 'Running';
  const transitions = new Map(input.transitions);
  const condition = (type: string, ok: boolean) => {
    const prev = transitions.get(type);
    const at = prev && prev.ok === ok ? prev.at : input.now;
    transitions.set(type, { ok, at });
    return { type, status: ok ? 'True' : 'False', lastTransitionTime: at };
  };
  return {
    status: {
      phase,
      message: input.failed,
      hostIP: '127.0.0.1',
      podIP: input.podIP,
      podIPs: [{ ip: input.podIP }],
      startTime: input.startTime,
      conditions: [
        condition('PodScheduled', true),
        condition('Initialized', input.initialized),
        condition('ContainersReady', allReady),
        condition('Ready', allReady),
      ],
      initContainerStatuses: input.initContainers.map(toStatus),
      containerStatuses: containers,
    },
    transitions,
  };
}

function containerStatus(c: V1Container, s: ContainerState, failed: string | undefined): V1ContainerStatus {
  const state: V1ContainerState = s.running
    ? { running: { startedAt: s.running.startedAt } }
    : s.terminated
      ? { terminated: terminated(s.terminated) }
      : s.waiting
        ? { waiting: { reason: s.waiting.reason, message: s.waiting.message } }
        : {
            // Not started yet: waiting on the init containers, or never to start.
            waiting: { reason: failed ? 'CreateContainerError' : 'PodInitializing', message: failed },
          };
  return {
    name: c.name,
    image: c.image ?? '',
    imageID: '',
    containerID: s.running?.pid ? `devnode://${s.running.pid}` : undefined,
    ready: s.ready,
    started: !!s.running,
    restartCount: s.restartCount,
    state,
    lastState: s.last ? { terminated: terminated(s.last) } : {},
  };
}

function terminated(t: Termination) {
  return { exitCode: t.exitCode, reason: t.reason, startedAt: t.startedAt, finishedAt: t.finishedAt };
}
