import type { Context } from 'hono';
import type { DetachedRun, Sandbox } from '../../core/index.ts';
import type { Caller } from '../auth/index.ts';
import type { CallEnd } from '../request/index.ts';

/** `?detach=true`, or (without the parameter) `Prefer: respond-async`, its header equivalent. */
export function detachRequested(c: Context, detach: 'true' | 'false' | undefined): boolean {
  if (detach !== undefined) return detach === 'true';
  return /(^|[\s,;])respond-async($|[\s,;])/i.test(c.req.header('prefer') ?? '');
}

/** Where a run's events are read: replayed, then followed to `exit`. */
export function eventsUrl(sandbox: Sandbox, invokeId: string): string {
  const { name = '', namespace = '' } = sandbox.metadata;
  return `/api/v1/sandboxes/${encodeURIComponent(name)}/runs/${encodeURIComponent(invokeId)}/events?namespace=${encodeURIComponent(namespace)}`;
}

/** What a detached run's answer records. */
export interface DetachedCall {
  kind: 'invoke' | 'exec';
  invokeId: string;
  sandbox: Sandbox;
  caller: Caller;
  started: number;
}

/**
 * A run sandboxd accepted detached: the body of its `202 {invokeId, eventsUrl}` (whose
 * `eventsUrl` the caller also sends as the answer's Location) and the call's end for
 * `observed`: its one audit record (`RunDetached`; never argv or stdin), its metrics and span
 * with outcome `detached` (the run's own end is sandboxd's, with no API call to observe it).
 */
export function answerDetached(call: DetachedCall): { run: DetachedRun; end: CallEnd } {
  const { kind, invokeId, sandbox, caller, started } = call;
  const end: CallEnd = {
    outcome: 'detached',
    attributes: {
      invoke_id: invokeId,
      duration_ms: Math.round(performance.now() - started),
      outcome: 'detached',
    },
    audit: {
      sandbox,
      reason: 'RunDetached',
      type: 'Normal',
      message: `${kind} ${invokeId} by ${caller.user} started detached`,
      actor: caller.user,
    },
  };
  return { run: { invokeId, eventsUrl: eventsUrl(sandbox, invokeId) }, end };
}
