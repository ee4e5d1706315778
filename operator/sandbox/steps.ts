import type { SandboxTemplateSpec } from '../../core/index.ts';
import { claimWarmMember } from '../warmpool/index.ts';
import type { Found, Pass, VolumeState } from './context.ts';
import { inOrder, mapFound, run, together } from './found.ts';
import { checkLifetime, stopIfStopped } from './lifetime.ts';
import { ensureNetworkPolicy } from './network-policy.ts';
import { ensurePod } from './pod.ts';
import { ensurePorts } from './ports.ts';
import { whileRunning } from './running.ts';
import { resolveTemplate } from './template.ts';
import { ensureToken } from './token.ts';
import { ensureVolume } from './volume.ts';
import type { Claimed } from '../warmpool/step.ts';

/**
 * The steps of one pass, in order. Each reads the caches, writes only what differs, says its
 * conditions and when to look again, and returns what it found (the template, the volume,
 * the Pod) to the steps after it, which take it as an argument; the first that returns a
 * stage ends the pass. The steps run `together` are independent of each other (their writes
 * are the requests a new sandbox waits on). Every step is idempotent (create when missing,
 * 409 means done), so a restart mid-way never duplicates anything.
 */
export function sandboxSteps(pass: Pass): Promise<Found<undefined>> {
  return inOrder(run(pass, resolveTemplate), (template) =>
    inOrder(together(run(pass, ensurePorts), objects(pass, template)), ([, workload]) =>
      podSteps({ ...pass, sandbox: workload.sandbox }, template, workload),
    ),
  );
}

/** What the steps before the Pod found: the Sandbox (as a claim left it), the member, the volume. */
interface Workload extends Claimed {
  volume: VolumeState;
}

/**
 * The sandbox's NetworkPolicy and its workload. A warm member, when one may be claimed, is
 * taken only once the sandbox's NetworkPolicy exists, so the running Pod that leaves the
 * pool's policy is under its sandbox's at once, never under none. A cold start writes its
 * objects beside the policy.
 */
function objects(pass: Pass, template: SandboxTemplateSpec): Promise<Found<Workload>> {
  const policy = () => run(pass, (p) => ensureNetworkPolicy(p, template));
  if (pass.d.warm?.mayTake(pass.sandbox)) return inOrder(policy(), () => workload(pass, template));
  return together(policy(), workload(pass, template)).then((r) => mapFound(r, ([, w]) => w));
}

/**
 * Where the workload comes from: the token Secret and the workspace claim, then (after the
 * lifetime and stop checks) the Pod. A warm pool's ready member, when one is claimed, brings
 * all three, so they are named only once the claim has decided.
 */
function workload(pass: Pass, template: SandboxTemplateSpec): Promise<Found<Workload>> {
  return inOrder(
    run(pass, (p) => claimWarmMember(p, template)),
    ({ sandbox, adopted }) => {
      const claimed: Pass = { ...pass, sandbox };
      return together(
        run(claimed, (p) => ensureToken(p, adopted)),
        run(claimed, (p) => ensureVolume(p, template, adopted)),
      ).then((r) => mapFound(r, ([, volume]) => ({ sandbox, adopted, volume })));
    },
  );
}

/** The lifetime and stop checks, the Pod, and what a Running sandbox adds. */
function podSteps(pass: Pass, template: SandboxTemplateSpec, w: Workload): Promise<Found<undefined>> {
  return inOrder(
    run(pass, (p) => checkLifetime(p, template, w.adopted)),
    (pod) =>
      inOrder(
        run(pass, (p) => stopIfStopped(p, pod)),
        () =>
          inOrder(
            run(pass, (p) => ensurePod(p, template, w.volume, pod)),
            (running) => run(pass, (p) => whileRunning(p, template, running)),
          ),
      ),
  );
}
