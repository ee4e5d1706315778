import { EXPIRED } from './lifetime.ts';
import type { SandboxPhase } from './status.ts';

/** One condition a reconcile step sets: `ok` is its status (True or False). */
export interface StepCondition {
  type: string;
  ok: boolean;
  reason: string;
  message: string;
}

/**
 * Where a pass ended, as the operator's steps observed it. Every reconcile ends in exactly
 * one of these; the phase, the message and the `Ready`/`Stopped` conditions follow from it
 * alone (`sandboxVerdict`), so the mapping is tested without a cluster.
 */
export type Stage =
  | { kind: 'TemplateNotFound'; message: string }
  | { kind: 'VolumeFailed'; message: string }
  /** The lifetime ran out in this pass. */
  | { kind: 'Expired'; reason: string; message: string }
  /** Stopped (spec.stopped, or an earlier expiry): `podGone` once its Pod is away. */
  | { kind: 'Stopping'; podGone: boolean; stoppedMessage?: string; expired: boolean }
  | { kind: 'Waiting'; message: string }
  /**
   * Its Pod runs, but the agent harness its spec came with (a clone's) has not been installed
   * in it yet: not Running until it has, so an invoke never finds it unconfigured.
   */
  | { kind: 'Installing'; message: string }
  | { kind: 'PodFailing'; message: string }
  /** The kubelet evicted the Pod (disk, memory, …): `message` is the kubelet's own. */
  | { kind: 'Evicted'; message: string }
  /** The Pod ended (phase Succeeded or Failed) and no eviction is known: it never runs again. */
  | { kind: 'PodEnded'; message: string }
  /** An object of a name the sandbox needs exists and is not its own (never adopted). */
  | { kind: 'NameConflict'; message: string }
  | { kind: 'Running' };

export interface Verdict {
  phase: SandboxPhase;
  message: string;
  conditions: StepCondition[];
  /** The Event's reason when the phase changes, where `Sandbox<phase>` would say less. */
  event?: { reason: string };
}

const STOPPED: StepCondition = {
  type: 'Ready',
  ok: false,
  reason: 'Stopped',
  message: 'the sandbox is stopped',
};
const RUNNING: StepCondition = { type: 'Stopped', ok: false, reason: 'Running', message: '' };

/** The phase, message and Ready/Stopped/Expired conditions a pass that ended at `stage` writes. */
export function sandboxVerdict(stage: Stage, previous: SandboxPhase | undefined): Verdict {
  switch (stage.kind) {
    case 'TemplateNotFound':
    case 'VolumeFailed': {
      // Ready too, so tools that wait on Ready (kubectl wait, Argo CD) see why at once.
      const reason = stage.kind === 'VolumeFailed' ? 'SnapshotUnavailable' : 'TemplateNotFound';
      return {
        phase: 'Error',
        message: stage.message,
        conditions: [{ type: 'Ready', ok: false, reason, message: stage.message }],
      };
    }
    case 'Expired':
      return {
        phase: 'Stopped',
        message: stage.message,
        conditions: [
          { type: EXPIRED, ok: true, reason: stage.reason, message: stage.message },
          { type: 'Stopped', ok: true, reason: stage.reason, message: stage.message },
          STOPPED,
        ],
      };
    case 'Stopping':
      return {
        phase: stage.podGone ? 'Stopped' : (previous ?? 'Creating'),
        message: stage.podGone
          ? (stage.stoppedMessage ?? 'stopped')
          : 'stopping: waiting for the Pod to terminate',
        conditions: [
          STOPPED,
          // An expiry or an earlier pass already said why it stopped; otherwise spec did.
          ...(stage.stoppedMessage !== undefined || stage.expired
            ? []
            : [{ type: 'Stopped', ok: true, reason: 'StopRequested', message: 'spec.stopped is true' }]),
        ],
      };
    case 'Waiting':
      return {
        phase: 'Creating',
        message: stage.message,
        conditions: [{ type: 'Ready', ok: false, reason: 'PodNotReady', message: stage.message }, RUNNING],
      };
    case 'Installing':
      return {
        phase: 'Creating',
        message: stage.message,
        conditions: [
          { type: 'Ready', ok: false, reason: 'AgentInstalling', message: stage.message },
          RUNNING,
        ],
      };
    case 'NameConflict':
      return {
        phase: 'Error',
        message: stage.message,
        conditions: [{ type: 'Ready', ok: false, reason: 'NameConflict', message: stage.message }],
      };
    case 'PodFailing':
      return {
        phase: 'Error',
        message: stage.message,
        conditions: [{ type: 'Ready', ok: false, reason: 'PodFailing', message: stage.message }],
      };
    case 'Evicted':
      // Not recreated on its own: the same full workspace would be evicted again at once.
      return {
        phase: 'Error',
        message: `the kubelet evicted the sandbox Pod: ${stage.message}; resume the sandbox to start it again`,
        conditions: [{ type: 'Ready', ok: false, reason: 'Evicted', message: stage.message }],
        event: { reason: 'Evicted' },
      };
    case 'PodEnded':
      return {
        phase: 'Error',
        message: `${stage.message}; resume the sandbox to start it again`,
        conditions: [{ type: 'Ready', ok: false, reason: 'PodEnded', message: stage.message }],
        event: { reason: 'PodEnded' },
      };
    case 'Running':
      return {
        phase: 'Running',
        message: 'the sandbox is running',
        conditions: [{ type: 'Ready', ok: true, reason: 'PodReady', message: 'sandboxd answers' }, RUNNING],
      };
  }
}

/** The parts of a Pod (client-node's V1Pod fits) that say how it is doing. */
export interface PodView {
  metadata?: { deletionTimestamp?: unknown; creationTimestamp?: Date | string };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    conditions?: { type: string; status: string }[];
    initContainerStatuses?: ContainerView[];
    containerStatuses?: ContainerView[];
  };
}

export interface ContainerView {
  name: string;
  restartCount: number;
  state?: { running?: object; terminated?: object; waiting?: object };
  lastState?: { terminated?: { exitCode: number; reason?: string } };
}

/**
 * What the operator knows of an eviction besides the Pod: the message of the kubelet's
 * `Evicted` Event for the Pod's uid (`event`), and the message of the sandbox's own
 * `Ready=False Evicted` condition (`recorded`), which outlives the Event (the apiserver drops
 * Events after an hour) and can only be about the Pod there now: a new Pod passes through
 * `PodNotReady` before it could end.
 */
export interface EvictionSeen {
  event?: string;
  recorded?: string;
}

/**
 * Why the sandbox Pod ended, when it has (phase Succeeded or Failed), else undefined. Our
 * Pod's `restartPolicy` is Always, so the kubelet ends it only from outside (an eviction, a
 * node shutdown, a preemption) and never starts it again: the sandbox is done with it.
 *
 * An eviction often leaves no trace on the Pod: the kubelet SIGTERMs the containers,
 * sandboxd shuts down cleanly and exits 0, and the Pod reads `Succeeded` with no reason
 * (Kubernetes issue 141483). Then the kubelet's `Evicted` Event is the only word of it, so it
 * comes first; then the Pod's own reason (`Failed`/`Evicted` when the kubelet's status won),
 * then a plain account of the phase.
 */
export function podEnd(
  pod: PodView,
  seen: EvictionSeen = {},
): Extract<Stage, { kind: 'Evicted' | 'PodEnded' }> | undefined {
  const phase = pod.status?.phase;
  if (phase !== 'Succeeded' && phase !== 'Failed') return undefined;
  const known = seen.event?.trim() || seen.recorded?.trim();
  if (known) return { kind: 'Evicted', message: known };
  const reason = pod.status?.reason?.trim();
  const message = pod.status?.message?.trim();
  if (reason === 'Evicted') return { kind: 'Evicted', message: message || 'the kubelet evicted the Pod' };
  const why = [reason, message].filter(Boolean).join(': ');
  return {
    kind: 'PodEnded',
    message: why
      ? `the sandbox Pod ended (phase ${phase}): ${why}`
      : `the sandbox Pod ended (phase ${phase}) and the kubelet gave no reason`,
  };
}

/** Whether the Pod ended (phase Succeeded or Failed): see `podEnd`. */
export function podEnded(pod: PodView): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/**
 * Whether a resume was asked for (`resumeAt`, the resume annotation's time) after this ended
 * (evicted, …) Pod was made: then the operator replaces the Pod. A resume from before it
 * (say, one kept in Git) is not a new one.
 */
export function endedPodResumed(pod: PodView, resumeAt: string | undefined): boolean {
  if (!podEnded(pod)) return false;
  const created = pod.metadata?.creationTimestamp;
  const createdMs = created === undefined ? 0 : new Date(created).getTime();
  return (Date.parse(resumeAt ?? '') || 0) > createdMs;
}

/** Why a running Pod "keeps failing" (a container restarting), or undefined while it is healthy enough. */
export function podFailure(pod: PodView, maxRestarts: number): string | undefined {
  for (const c of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
    if (c.restartCount >= maxRestarts) {
      const last = c.lastState?.terminated;
      const why = last ? ` (last exit code ${last.exitCode}${last.reason ? `, ${last.reason}` : ''})` : '';
      return `container ${c.name} keeps failing: restarted ${c.restartCount} times${why}`;
    }
  }
  return undefined;
}

/** Whether the kubelet (or devnode) reports the Pod Ready. */
export function podReady(pod: PodView): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Whether the container `name` runs now (its process started; it may not answer yet). */
export function containerRunning(pod: PodView, name: string): boolean {
  return !!pod.status?.containerStatuses?.find((c) => c.name === name)?.state?.running;
}

/**
 * Where a sandbox whose Pod should run stands: `pod` is the cached Pod (undefined: none yet),
 * `volume` its claim, `sandboxdUp` whether sandboxd answered the operator's own check (which
 * may come before the kubelet's readiness probe does), `eviction` what is known of an
 * eviction beside the Pod (see `podEnd`).
 */
export function podStage(
  pod: PodView | undefined,
  o: {
    maxRestarts: number;
    volumeBound: boolean;
    volumeMessage: string;
    sandboxdUp?: boolean;
    eviction?: EvictionSeen;
  },
): Stage {
  if (!pod || pod.metadata?.deletionTimestamp)
    return { kind: 'Waiting', message: 'creating the sandbox Pod' };
  if (!o.volumeBound) return { kind: 'Waiting', message: o.volumeMessage };
  const ended = podEnd(pod, o.eviction);
  if (ended) return ended;
  const failing = podFailure(pod, o.maxRestarts);
  if (failing) return { kind: 'PodFailing', message: failing };
  if (podReady(pod) || o.sandboxdUp) return { kind: 'Running' };
  return { kind: 'Waiting', message: 'waiting for the sandbox Pod to become ready' };
}
