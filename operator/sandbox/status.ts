import {
  Annotations,
  sandboxObjectsName,
  type Condition,
  type SandboxStatus,
  type StepCondition,
  type Verdict,
} from '../../core/index.ts';
import { setCondition } from '../../kube/index.ts';
import type { Pass } from './context.ts';

/**
 * Writes the pass's status, only when it differs from the cached one (a pass that changed
 * nothing costs no request), with an event when the phase changes.
 */
export async function writeStatus(
  pass: Pass,
  verdict: Verdict,
  stepConditions: StepCondition[],
  /** The pass got as far as the Pod: `status.podName` names it. */
  hasPod: boolean,
): Promise<void> {
  const { sandbox } = pass;
  const now = pass.d.now();
  const generation = sandbox.metadata.generation;
  let conditions: Condition[] | undefined = sandbox.status?.conditions;
  for (const c of [...stepConditions, ...verdict.conditions]) {
    conditions = setCondition(
      conditions,
      { type: c.type, status: c.ok ? 'True' : 'False', reason: c.reason, message: c.message },
      generation,
      now,
    );
  }
  const clonedFrom = sandbox.status?.clonedFrom ?? sandbox.metadata.annotations?.[Annotations.clonedFrom];
  const status: SandboxStatus = {
    ...sandbox.status,
    phase: verdict.phase,
    message: verdict.message,
    observedGeneration: generation,
    conditions,
    resolvedTemplate: `${sandbox.spec.templateRef.kind}/${sandbox.spec.templateRef.name}`,
    forwardedPorts: pass.forwardedPorts ?? sandbox.status?.forwardedPorts ?? [],
    ...(hasPod ? { podName: sandboxObjectsName(pass.sandbox) } : {}),
    ...(clonedFrom ? { clonedFrom } : {}),
  };
  if (JSON.stringify(status) === JSON.stringify(sandbox.status)) return;
  // agentConfigure is written by the agent configurer alone; a pass working from a cache
  // older than its last write must not put an old value back.
  const { agentConfigure: _owned, ...patch } = status;
  if (verdict.phase !== sandbox.status?.phase) {
    const type = verdict.phase === 'Error' ? 'Warning' : 'Normal';
    await pass.d.event(pass, type, `Sandbox${verdict.phase}`, verdict.message);
  }
  await pass.d.patcher.patchStatus(sandbox, patch);
}
