import type { V1Pod } from '@kubernetes/client-node';
import {
  EXPIRED,
  WarmPool,
  isExpired,
  sandboxExpiry,
  sandboxObjectsName,
  type SandboxTemplateSpec,
} from '../../core/index.ts';
import type { Adopted } from '../warmpool/index.ts';
import type { Found, Pass, StepResult } from './context.ts';
import { idleLook } from './idle.ts';
import { Pod, mine, remove } from './owned.ts';

/**
 * The lifetime of the running Pod (`timeout`, `idleTimeout`): when it runs out the sandbox
 * stops through status alone, never spec (a GitOps tool would put spec back and restart
 * it). The Pod goes on the next pass, once the cache holds this status, so no pass ever sees
 * the Pod gone without the expiry and creates it again. Finds the sandbox Pod (undefined:
 * none yet) for the steps after it.
 */
export async function checkLifetime(
  pass: Pass,
  template: SandboxTemplateSpec,
  adopted: Adopted | undefined,
): Promise<Found<V1Pod | undefined>> {
  const { sandbox } = pass;
  // Only its own: a Pod of the name that is someone else's is the Pod step's NameConflict.
  const pod = mine(pass, Pod, sandboxObjectsName(sandbox)) ?? adopted?.pod;
  if (sandbox.spec.stopped || isExpired(sandbox) || pod?.metadata?.deletionTimestamp) return { found: pod };
  // A claimed warm-pool member's lifetime starts at the claim, not when its pool made it.
  const created =
    pod?.metadata?.annotations?.[WarmPool.claimedAtAnnotation] ?? pod?.metadata?.creationTimestamp;
  const started = created ? new Date(created) : undefined;
  let expiry = sandboxExpiry(sandbox, template, started, pass.d.now());
  let status: StepResult['status'];
  // Idle by the API's count: sandboxd, which sees runs, terminals and CPU, has the last word.
  if (expiry.expired && expiry.reason === 'IdleTimeoutExceeded' && pod) {
    const look = await idleLook(pass, pod, template);
    if (look) {
      status = look.seen;
      expiry = sandboxExpiry(sandbox, template, started, pass.d.now(), look.lastActiveAt);
    }
  }
  if (!expiry.expired) return { requeueMs: expiry.requeueAfter, status, found: pod };
  await pass.d.event(pass, 'Normal', expiry.reason, expiry.message);
  return { stage: { kind: 'Expired', reason: expiry.reason, message: expiry.message }, status };
}

/** A stopped sandbox (spec.stopped, or expired and not resumed since): its Pod goes. */
export async function stopIfStopped(pass: Pass, pod: V1Pod | undefined): Promise<StepResult> {
  const { sandbox } = pass;
  const expired = isExpired(sandbox);
  if (!sandbox.spec.stopped && !expired) return {};
  if (pod && !pod.metadata?.deletionTimestamp) await remove(pass, Pod, sandboxObjectsName(sandbox));
  const recorded = sandbox.status?.conditions?.find((c) => c.type === 'Stopped' && c.status === 'True');
  return { stage: { kind: 'Stopping', podGone: !pod, stoppedMessage: recorded?.message, expired } };
}

/** `Expired` back to False once a resume brought the sandbox back (when it ever expired). */
export function resumedCondition(pass: Pass): StepResult {
  const expired = pass.sandbox.status?.conditions?.some((c) => c.type === EXPIRED && c.status === 'True');
  return expired
    ? { conditions: [{ type: EXPIRED, ok: false, reason: 'Resumed', message: 'resumed after it expired' }] }
    : {};
}
