import type { Context } from 'hono';
import type { DetachedRun, Sandbox } from '../../core/index.ts';
import { endSpan, type Span } from '../../telemetry/index.ts';
import type { Caller } from '../auth/index.ts';
import type { RunsDeps } from './deps.ts';

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
  template: string;
  span: Span;
  started: number;
}

/**
 * A run sandboxd accepted detached: the call's one audit record (`RunDetached`; never argv or
 * stdin), its metrics (outcome `detached`: the run's own end is sandboxd's, with no API call
 * to observe it) and its span; then the body of its `202 {invokeId, eventsUrl}`, whose
 * `eventsUrl` the caller also sends as the answer's Location.
 */
export function answerDetached(deps: RunsDeps, call: DetachedCall): DetachedRun {
  const { kind, invokeId, sandbox, caller, template, span, started } = call;
  const seconds = (performance.now() - started) / 1000;
  if (kind === 'invoke') deps.metrics.observe('invoke', { template, outcome: 'detached' }, seconds);
  else deps.metrics.observeExec({ template, outcome: 'detached' }, seconds);
  endSpan(span, { invoke_id: invokeId, duration_ms: Math.round(seconds * 1000), outcome: 'detached' });
  void deps.audit
    .record({
      sandbox,
      reason: 'RunDetached',
      type: 'Normal',
      message: `${kind} ${invokeId} by ${caller.user} started detached`,
      actor: caller.user,
    })
    .catch((err: unknown) =>
      deps.logger.warn({ err, sandbox: sandbox.metadata.name }, 'detach audit failed'),
    );
  return { invokeId, eventsUrl: eventsUrl(sandbox, invokeId) };
}
