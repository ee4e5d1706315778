import type { Sandbox, SandboxTemplateSpec } from '../../core/index.ts';
import type { Found, Pass } from '../sandbox/context.ts';
import type { Adopted } from './claim.ts';

/** What the claim step found: the Sandbox the steps after it work on, and the member it took. */
export interface Claimed {
  sandbox: Sandbox;
  adopted?: Adopted;
}

/**
 * The Sandbox step where a cold start would create the workspace claim and then the Pod: a
 * ready warm-pool member's instead, when one fits. Runs after the NetworkPolicy step, so the
 * adopted Pod is selected by the sandbox's own policy the moment it leaves the pool's. The
 * claim writes the Sandbox (it names its member): the steps after it and the status write
 * take that one.
 */
export async function claimWarmMember(pass: Pass, template: SandboxTemplateSpec): Promise<Found<Claimed>> {
  if (!pass.d.warm) return { found: { sandbox: pass.sandbox } };
  const { sandbox, after, adopted } = await pass.d.warm.claim(pass.log, pass.sandbox, template);
  if (after) pass.after.push(after);
  return { sandbox, found: { sandbox, adopted } };
}
