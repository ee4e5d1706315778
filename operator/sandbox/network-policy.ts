import { SPEC_HASH, networkPolicy } from '../manifests/index.ts';
import type { SandboxTemplateSpec } from '../../core/index.ts';
import type { Pass, StepResult } from './context.ts';
import { NetworkPolicy, ensure } from './owned.ts';

/** The sandbox's NetworkPolicy, rewritten only when what it should say changed. */
export async function ensureNetworkPolicy(pass: Pass, template: SandboxTemplateSpec): Promise<StepResult> {
  const policy = networkPolicy(pass.sandbox, template, pass.d.settings);
  const hash = policy.metadata?.annotations?.[SPEC_HASH];
  await ensure(pass, NetworkPolicy, policy, (current) => current.metadata?.annotations?.[SPEC_HASH] !== hash);
  return {};
}
