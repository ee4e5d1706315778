import { durationMs } from '../governance/duration.ts';
import { Annotations, type Sandbox } from './resource.ts';

/** The lifetime limits in force: the sandbox's own, else its template's. */
export interface LifetimeLimits {
  timeout?: string;
  idleTimeout?: string;
}

export type ExpiryReason = 'TimeoutExceeded' | 'IdleTimeoutExceeded';

/** Whether the sandbox's lifetime is over now, and if not, in how many ms to look again. */
export type Expiry =
  { expired: true; reason: ExpiryReason; message: string } | { expired: false; requeueAfter?: number };

/** The condition type that records an expiry in status (the operator never writes spec). */
export const EXPIRED = 'Expired';

/**
 * The lifetime of a running sandbox: `timeout` counts from its start, `idleTimeout` from
 * its last activity (never before its start), and `0` (or no limit) is infinite. The last
 * activity is the latest of the API's annotation, `status.lastActivityAt` and `seenActive`
 * (what sandboxd said just now, see `idleLook`). Its start
 * is the later of the Pod's creation and the last resume request, so a resume begins a new
 * lifetime even while the old Pod is still going away. `podCreated` undefined: no Pod, no
 * lifetime running. `requeueAfter` lands just after the earliest limit.
 */
export function sandboxExpiry(
  sandbox: Sandbox,
  template: LifetimeLimits,
  podCreated: Date | undefined,
  now: Date,
  seenActive?: Date,
): Expiry {
  if (!podCreated) return { expired: false };
  const started = Math.max(podCreated.getTime(), timeOf(sandbox, Annotations.resumeRequestedAt));
  const activity = Math.max(
    started,
    timeOf(sandbox, Annotations.lastActivity),
    Date.parse(sandbox.status?.lastActivityAt ?? '') || 0,
    seenActive?.getTime() ?? 0,
  );
  const timeout = sandbox.spec.timeout ?? template.timeout;
  const idle = sandbox.spec.idleTimeout ?? template.idleTimeout;
  const limits: { at: number; reason: ExpiryReason; message: string }[] = [];
  if (timeout && durationMs(timeout) > 0)
    limits.push({
      at: started + durationMs(timeout),
      reason: 'TimeoutExceeded',
      message: `stopped after its timeout of ${timeout}`,
    });
  if (idle && durationMs(idle) > 0)
    limits.push({
      at: activity + durationMs(idle),
      reason: 'IdleTimeoutExceeded',
      message: `stopped after ${idle} without activity (idle since ${new Date(activity).toISOString()})`,
    });
  const t = now.getTime();
  const over = limits.find((l) => t >= l.at);
  if (over) return { expired: true, reason: over.reason, message: over.message };
  if (limits.length === 0) return { expired: false };
  return { expired: false, requeueAfter: Math.max(100, Math.min(...limits.map((l) => l.at)) - t + 50) };
}

/**
 * Whether the sandbox stays stopped because it expired: its `Expired` condition is true and
 * no resume was requested after it. Read from status alone, so re-applying the original
 * manifest (as a GitOps tool's self-heal does) never starts it again.
 */
export function isExpired(sandbox: Sandbox): boolean {
  const expired = sandbox.status?.conditions?.find((c) => c.type === EXPIRED && c.status === 'True');
  if (!expired) return false;
  return timeOf(sandbox, Annotations.resumeRequestedAt) <= Date.parse(expired.lastTransitionTime);
}

/** An annotation's RFC 3339 time in ms, or 0 when absent or not a time. */
function timeOf(sandbox: Sandbox, annotation: string): number {
  return Date.parse(sandbox.metadata.annotations?.[annotation] ?? '') || 0;
}
