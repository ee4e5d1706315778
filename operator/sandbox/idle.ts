import type { V1Pod } from '@kubernetes/client-node';
import { ActiveReason, type Sandbox, type SandboxTemplateSpec } from '../../core/index.ts';
import type { Pass } from './context.ts';

/**
 * `status.lastActivityAt` is rewritten only when it moved this much (or the reasons
 * changed): a sandbox busy for hours costs one status write a minute at most, not one per
 * look. Correctness never waits on it: sandboxd remembers its own last activity.
 */
const ACTIVITY_WRITE_MS = 60_000;

/** What a look at sandboxd found, for `status.lastActivityAt` and `status.activeReasons`. */
export interface SeenActivity {
  lastActivityAt: string;
  activeReasons: ActiveReason[];
}

/**
 * Asks the sandbox's sandboxd whether it is in use (a request in flight, a run alive, a
 * terminal open, or CPU above the template's `idle.cpuThreshold`) and since when it is not.
 * The operator asks only when the API's activity alone says the idle period ran out, so a
 * sandbox costs one look per `idleTimeout` at most. Undefined: sandboxd did not answer
 * (the sandbox expires on what the API saw, as before).
 */
export async function idleLook(
  pass: Pass,
  pod: V1Pod,
  template: SandboxTemplateSpec,
): Promise<{ lastActiveAt: Date; seen?: SeenActivity } | undefined> {
  const answer = await pass.d.locator
    .forPod(pod)
    .then((c) => c.activity(template.idle?.cpuThreshold))
    .catch((err: unknown) => {
      pass.log.info({ err }, 'sandboxd did not say whether the sandbox is active');
      return undefined;
    });
  const lastActiveAt = new Date(answer?.lastActiveAt ?? '');
  if (!answer || Number.isNaN(lastActiveAt.getTime())) return undefined;
  const activeReasons = answer.reasons.flatMap((r) => {
    const parsed = ActiveReason.safeParse(r);
    return parsed.success ? [parsed.data] : [];
  });
  return { lastActiveAt, seen: worthWriting(pass.sandbox, lastActiveAt, activeReasons) };
}

/** The activity to put in status, or undefined when status is near enough already. */
function worthWriting(
  sandbox: Sandbox,
  lastActiveAt: Date,
  activeReasons: ActiveReason[],
): SeenActivity | undefined {
  const written = Date.parse(sandbox.status?.lastActivityAt ?? '') || 0;
  const sameReasons = (sandbox.status?.activeReasons ?? []).join() === activeReasons.join();
  if (sameReasons && lastActiveAt.getTime() - written < ACTIVITY_WRITE_MS) return undefined;
  return { lastActivityAt: lastActiveAt.toISOString(), activeReasons };
}
