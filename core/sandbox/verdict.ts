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
  | { kind: 'PodFailing'; message: string }
  /** The kubelet evicted the Pod (disk, memory, …): `message` is the kubelet's own. */
  | { kind: 'Evicted'; message: string }
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

/** The kubelet's message when it evicted the Pod (phase Failed, reason Evicted), else undefined. */
export function podEviction(pod: PodView): string | undefined {
  if (pod.status?.phase !== 'Failed' || pod.status.reason !== 'Evicted') return undefined;
  return pod.status.message?.trim() || 'the kubelet evicted the Pod';
}

/**
 * Whether a resume was asked for (`resumeAt`, the resume annotation's time) after this
 * evicted Pod was made: then the operator replaces the Pod. A resume from before it (say,
 * one kept in Git) is not a new one.
 */
export function evictionResumed(pod: PodView, resumeAt: string | undefined): boolean {
  if (podEviction(pod) === undefined) return false;
  const created = pod.metadata?.creationTimestamp;
  const createdMs = created === undefined ? 0 : new Date(created).getTime();
  return (Date.parse(resumeAt ?? '') || 0) > createdMs;
}

/** Why a Pod "keeps failing", or undefined while it is healthy enough. */
export function podFailure(pod: PodView, maxRestarts: number): string | undefined {
  if (pod.status?.phase === 'Failed')
    return `the sandbox Pod failed: ${pod.status.message ?? pod.status.reason ?? ''}`.trim();
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
 * may come before the kubelet's readiness probe does).
 */
export function podStage(
  pod: PodView | undefined,
  o: { maxRestarts: number; volumeBound: boolean; volumeMessage: string; sandboxdUp?: boolean },
): Stage {
  if (!pod || pod.metadata?.deletionTimestamp)
    return { kind: 'Waiting', message: 'creating the sandbox Pod' };
  if (!o.volumeBound) return { kind: 'Waiting', message: o.volumeMessage };
  const evicted = podEviction(pod);
  if (evicted !== undefined) return { kind: 'Evicted', message: evicted };
  const failing = podFailure(pod, o.maxRestarts);
  if (failing) return { kind: 'PodFailing', message: failing };
  if (podReady(pod) || o.sandboxdUp) return { kind: 'Running' };
  return { kind: 'Waiting', message: 'waiting for the sandbox Pod to become ready' };
}
