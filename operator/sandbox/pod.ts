import type { V1Pod } from '@kubernetes/client-node';
import { SandboxPod, containerRunning, podReady, podStage } from '../../core/index.ts';
import { sandboxPod } from '../manifests/index.ts';
import { templateOf, type Pass, type StepResult } from './context.ts';
import { Pod, ensure } from './owned.ts';

/** How often, and how many times, a started sandboxd is asked whether it answers yet. */
const SANDBOXD_CHECK = { tries: 6, firstMs: 10, maxMs: 80 };
/** Look again this soon when a started sandboxd did not answer the short check. */
const SANDBOXD_RECHECK_MS = 250;

/**
 * The sandbox Pod: created when missing (not while a clone's snapshot is still coming),
 * then how it is doing: waiting, failing (Error), or Running. Running needs no kubelet
 * probe period: once sandboxd's container runs, the operator asks sandboxd itself, at the
 * address the API uses, and a sandbox whose sandboxd answers is Running at once.
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
  let stage = podStage(pod, opts);
  if (stage.kind === 'Waiting' && pod && !podReady(pod) && containerRunning(pod, SandboxPod.container)) {
    const up = await sandboxdAnswers(pass, pod);
    stage = podStage(pod, { ...opts, sandboxdUp: up });
    if (!up) return { stage, requeueMs: SANDBOXD_RECHECK_MS };
  }
  return stage.kind === 'Running' ? {} : { stage };
}

/** Whether the Pod's sandboxd answers /healthz within a short bounded retry. */
async function sandboxdAnswers(pass: Pass, pod: V1Pod): Promise<boolean> {
  const client = await pass.d.locator.forPod(pod).catch(() => undefined);
  if (!client) return false; // no address yet: the Pod's next update brings it
  let wait = SANDBOXD_CHECK.firstMs;
  for (let i = 0; i < SANDBOXD_CHECK.tries; i++) {
    if (await client.health().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(wait * 2, SANDBOXD_CHECK.maxMs);
  }
  return false;
}
