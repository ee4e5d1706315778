import { podReady, podStage } from '../../core/index.ts';
import { sandboxPod } from '../manifests/index.ts';
import { templateOf, type Pass, type StepResult } from './context.ts';
import { Pod, ensure } from './owned.ts';

/**
 * The sandbox Pod: created when missing (not while a clone's snapshot is still coming),
 * then how it is doing: waiting, failing (Error), or Running. Running needs no kubelet
 * probe period: once sandboxd's container runs, the operator asks sandboxd itself
 * (`SandboxdReadiness`), and a sandbox whose sandboxd answers is Running at once.
 *
 * The workspace claim (volume step) and this Pod are what a sandbox costs to start; a step
 * that hands a sandbox an already started Pod and claim goes just before the volume step.
 */
export async function ensurePod(pass: Pass): Promise<StepResult> {
  const volume = pass.volume!;
  if (volume.waitMs) return { stage: { kind: 'Waiting', message: volume.message } };
  const pod = pass.pod;
  if (!pod) await ensure(pass, Pod, sandboxPod(pass.sandbox, templateOf(pass), pass.d.settings));
  const opts = {
    maxRestarts: pass.d.settings.maxRestarts,
    volumeBound: volume.bound,
    volumeMessage: volume.message,
  };
  // Not Ready yet, but perhaps sandboxd answers already (see SandboxdReadiness).
  const sandboxdUp = !!pod && !podReady(pod) && pass.d.readiness.answered(pass.key, pod);
  const stage = podStage(pod, { ...opts, sandboxdUp });
  return stage.kind === 'Running' ? {} : { stage };
}
