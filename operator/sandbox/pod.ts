import type { V1Pod } from '@kubernetes/client-node';
import {
  Annotations,
  endedPodResumed,
  podReady,
  podStage,
  type SandboxTemplateSpec,
} from '../../core/index.ts';
import { sandboxPod } from '../manifests/index.ts';
import type { Found, Pass, VolumeState } from './context.ts';
import { evictionSeen } from './evictions.ts';
import { Pod, ensure, remove } from './owned.ts';

/**
 * The sandbox Pod: created when missing (not while a clone's snapshot is still coming),
 * then how it is doing: waiting, failing (Error), or Running. Running needs no kubelet
 * probe period: once sandboxd's container runs, the operator asks sandboxd itself
 * (`SandboxdReadiness`), and a sandbox whose sandboxd answers is Running at once.
 *
 * A Pod that ended stays (the sandbox reads Error, Ready False `Evicted` with the kubelet's
 * message, or `PodEnded`: see `podEnd`) until a resume asked for after it was made: then it
 * goes, and the next pass makes a new one. Not on its own: the same full workspace would be
 * evicted again. (Its `restartPolicy` is Always: the kubelet never runs an ended Pod again.)
 *
 * The workspace claim (volume step) and this Pod are what a sandbox costs to start; a step
 * that hands a sandbox an already started Pod and claim goes just before the volume step.
 * Finds the running Pod, for the steps of a Running sandbox.
 */
export async function ensurePod(
  pass: Pass,
  template: SandboxTemplateSpec,
  volume: VolumeState,
  pod: V1Pod | undefined,
): Promise<Found<V1Pod>> {
  if (volume.waitMs) return { stage: { kind: 'Waiting', message: volume.message } };
  if (pod && !pod.metadata?.deletionTimestamp) {
    const resumeAt = pass.sandbox.metadata.annotations?.[Annotations.resumeRequestedAt];
    if (endedPodResumed(pod, resumeAt)) {
      await remove(pass, Pod, pod.metadata!.name!);
      return { stage: { kind: 'Waiting', message: 'resumed: replacing the ended sandbox Pod' } };
    }
  }
  const opts = {
    maxRestarts: pass.d.settings.maxRestarts,
    volumeBound: volume.bound,
    volumeMessage: volume.message,
  };
  if (!pod) {
    try {
      await ensure(pass, Pod, sandboxPod(pass.sandbox, template, pass.d.settings));
    } catch (err) {
      const refused = admissionRefusal(err);
      if (refused === undefined) throw err;
      // Say why rather than retry silently; a RuntimeClass created later is found on a requeue.
      const message = `the cluster refused the sandbox Pod: ${refused}`;
      return { stage: { kind: 'PodFailing', message }, requeueMs: REFUSED_RETRY_MS };
    }
    // Not in the cache yet (nor is one made just now): the sandbox waits for it.
    return { stage: podStage(undefined, { ...opts, sandboxdUp: false }) };
  }
  // Not Ready yet, but perhaps sandboxd answers already (see SandboxdReadiness).
  const sandboxdUp = !podReady(pod) && pass.d.readiness.answered(pass.key, pod);
  const stage = podStage(pod, { ...opts, sandboxdUp, eviction: evictionSeen(pass, pod) });
  return stage.kind === 'Running' ? { found: pod } : { stage };
}

/** How soon a sandbox whose Pod the cluster refused tries again. */
const REFUSED_RETRY_MS = 30_000;

/**
 * The apiserver's message when it refused the Pod for what it is (403 from admission, such
 * as a RuntimeClass that does not exist or a pod security level; 422 invalid), else undefined.
 */
function admissionRefusal(err: unknown): string | undefined {
  const { code, body } = (err ?? {}) as { code?: unknown; body?: unknown };
  if (code !== 403 && code !== 422) return undefined;
  if (typeof body !== 'string') return (body as { message?: string } | undefined)?.message ?? `HTTP ${code}`;
  try {
    return (JSON.parse(body) as { message?: string }).message ?? body;
  } catch {
    return body;
  }
}
