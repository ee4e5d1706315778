import { templateOf, type Pass, type StepResult } from '../sandbox/context.ts';

/**
 * The Sandbox step where a cold start would create the workspace claim and then the Pod: a
 * ready warm-pool member's instead, when one fits. Runs after the NetworkPolicy step, so the
 * adopted Pod is selected by the sandbox's own policy the moment it leaves the pool's.
 */
export async function claimWarmMember(pass: Pass): Promise<StepResult> {
  if (!pass.d.warm) return {};
  const { sandbox, after, adopted } = await pass.d.warm.claim(pass.log, pass.sandbox, templateOf(pass));
  pass.sandbox = sandbox;
  pass.adopted = adopted;
  if (after) pass.after.push(after);
  return {};
}
