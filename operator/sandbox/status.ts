import {
  Annotations,
  sandboxObjectsName,
  type Condition,
  type SandboxStatus,
  type StepCondition,
  type Verdict,
} from '../../core/index.ts';
import { setCondition } from '../../kube/index.ts';
import type { Pass, StatusPart } from './context.ts';

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
  /** What the steps found for status: forwarded ports, activity sandboxd reported. */
  found: StatusPart,
): Promise<void> {
  const { sandbox } = pass;
  const { forwardedPorts, ...activity } = found;
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
    forwardedPorts: forwardedPorts ?? sandbox.status?.forwardedPorts ?? [],
    ...(hasPod ? { podName: sandboxObjectsName(pass.sandbox) } : {}),
    ...(clonedFrom ? { clonedFrom } : {}),
    ...activity,
  };
  // Key order aside: the apiserver returns an object's keys sorted, this pass in its own order.
  const json = canonical(status);
  const unseen = unseenWrite(pass);
  if (json === canonical(sandbox.status) || json === unseen?.json) return;
  // agentConfigure is written by the agent configurer alone; a pass working from a cache
  // older than its last write must not put an old value back.
  const { agentConfigure: _owned, ...patch } = status;
  // The event beside the write, not before it: a phase reaches the status one request sooner.
  // One when the phase changes; and when a verdict that names its event changes the Ready
  // reason within the phase (an ended Pod read `PodEnded`, then the kubelet's `Evicted` Event
  // came). Measured against the last write when the cache does not show it yet.
  const ready = readyReason(verdict.conditions);
  const before = unseen ?? { phase: sandbox.status?.phase, ready: readyReason(sandbox.status?.conditions) };
  const changed = verdict.phase !== before.phase || (verdict.event !== undefined && ready !== before.ready);
  const type = verdict.phase === 'Error' ? 'Warning' : 'Normal';
  const [stored] = await Promise.all([
    pass.d.patcher.patchStatus(sandbox, patch),
    changed
      ? pass.d.event(pass, type, verdict.event?.reason ?? `Sandbox${verdict.phase}`, verdict.message)
      : undefined,
  ]);
  pass.d.written.set(pass.key, {
    json,
    phase: verdict.phase,
    ready,
    resourceVersion: stored.metadata.resourceVersion ?? '',
  });
}

/**
 * The status this controller last wrote for the sandbox while the cache does not show that
 * write yet (the cached resourceVersion is older), else undefined. A burst of Pod events
 * reconciles a sandbox several times before its own status write comes back through the
 * watch; those passes would otherwise write the same status again.
 */
function unseenWrite(pass: Pass): { json: string; phase: string; ready?: string } | undefined {
  const written = pass.d.written.get(pass.key);
  if (!written) return undefined;
  const cached = pass.sandbox.metadata.resourceVersion ?? '';
  // resourceVersions are etcd revisions: a larger one is newer.
  const caughtUp = cached === written.resourceVersion || Number(cached) > Number(written.resourceVersion);
  if (!caughtUp) return written;
  pass.d.written.delete(pass.key);
  return undefined;
}

/** The reason of a Ready condition among `conditions` (a step's or the status's). */
function readyReason(
  conditions: readonly { type: string; reason?: string }[] | undefined,
): string | undefined {
  return conditions?.find((c) => c.type === 'Ready')?.reason;
}

/** JSON with every object's keys sorted, so two equal statuses compare equal. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
