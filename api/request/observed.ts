import type { Context } from 'hono';
import type { ExitEvent, Sandbox } from '../../core/index.ts';
import { actorOf, endSpan, type Attributes, type Span } from '../../telemetry/index.ts';
import type { AuditEntry } from '../audit/index.ts';
import type { Caller } from '../auth/index.ts';
import type { ApiDeps } from '../deps.ts';
import type { Outcome } from '../metrics/index.ts';
import { refusalOutcome, templateOf } from './sandboxd.ts';
import type { OnSandbox } from './scope.ts';

/** The calls observed: each has its span `svc.<operation>` and its metrics. */
export type Operation = 'configure' | 'invoke' | 'exec';

export type ObservedDeps = Pick<ApiDeps, 'audit' | 'logger' | 'metrics' | 'tracing'>;

/** What a call is given by `observed`: its span, its clock, its caller and sandbox. */
export interface ObservedCall {
  readonly started: number;
  readonly caller: Caller;
  readonly span: Span;
  readonly sandbox: Sandbox;
  readonly template: string;
  /** Milliseconds since the call started, rounded. */
  elapsed(): number;
  /**
   * Writes the call's audit record now, with a provisional reason (an invoke's
   * `AgentInvokeStarted`, written before its first byte); the end's `audit` then becomes
   * that same record, so a call cut short by the API's death still has one.
   */
  openAudit(entry: AuditEntry): Promise<void>;
  /** Settles once the call's end is counted: its span ended, its metric observed. */
  readonly counted: Promise<void>;
  /** Settles once the call's end is recorded: counted, and its audit record written. */
  readonly recorded: Promise<void>;
}

/** How a call ended, as its span, metric and audit record say it. */
export interface CallEnd {
  /** The metric's `outcome` label; none: the call is not counted (it broke off). */
  outcome?: Outcome;
  /** The span's last attributes (`outcome`, `duration_ms`, …). */
  attributes: Attributes;
  /** Set: the span's status is ERROR (a refusal, a stream that broke off). */
  error?: unknown;
  /** The call's audit record, when the call writes one (refusals: `auditingRefusals`). */
  audit?: AuditEntry;
}

/**
 * What a call's work hands back: the answer, or the error to answer with, and the call's end
 * — a promise when the answer is a stream that goes on after the handler returns (the end
 * is known when the stream ends).
 */
export type Observed<T> = { end: CallEnd | Promise<CallEnd> } & ({ answer: T } | { error: unknown });

/**
 * Runs one configure, invoke or exec call inside its span (`svc.<operation>`, a child of the
 * caller's `traceparent`, the actor hashed) and records its end once, in one place: the span
 * ended (ERROR status on a failure), the metric observed with the outcome, the audit record
 * written. A call that throws ends as a refusal: `outcome` from `refusalOutcome`, counted only
 * when the error is one the metrics name (its audit record is the route's, `auditingRefusals`).
 */
export async function observed<T>(
  c: Context<OnSandbox>,
  deps: ObservedDeps,
  operation: Operation,
  work: (call: ObservedCall) => Promise<Observed<T>>,
): Promise<T> {
  const started = performance.now();
  const caller: Caller = c.var.caller;
  const sandbox = c.var.sandbox;
  const template = templateOf(sandbox);
  const span = deps.tracing.tracer.startSpan(
    `svc.${operation}`,
    { attributes: { actor: actorOf(caller.user), template, sandbox: sandbox.metadata.name ?? '' } },
    deps.tracing.extract(c.req.raw.headers),
  );
  const counted = Promise.withResolvers<void>();
  const recorded = Promise.withResolvers<void>();
  let opened: Promise<{ end(entry: AuditEntry): Promise<void> }> | undefined;
  const elapsed = () => Math.round(performance.now() - started);
  const call: ObservedCall = {
    started,
    caller,
    span,
    sandbox,
    template,
    elapsed,
    openAudit: async (entry) => {
      opened = deps.audit.open(entry);
      await opened;
    },
    counted: counted.promise,
    recorded: recorded.promise,
  };

  let end: CallEnd | Promise<CallEnd> | undefined;
  try {
    const done = await work(call);
    end = done.end;
    if ('error' in done) throw done.error;
    return done.answer;
  } catch (err) {
    end ??= {
      outcome: refusalOutcome(err),
      attributes: { duration_ms: elapsed(), outcome: refusalOutcome(err) ?? 'error' },
      error: err,
    };
    throw err;
  } finally {
    const ending = end;
    // One place for the call's end, whichever way it went; a call whose answer is a stream
    // gets here when the stream ends (`end` is the stream's promise).
    void (async () => {
      const { outcome, attributes, error, audit } = await Promise.resolve(ending!).catch(
        (err: unknown): CallEnd => ({ attributes: { duration_ms: elapsed(), outcome: 'error' }, error: err }),
      );
      endSpan(span, attributes, error);
      if (outcome) {
        const seconds = (performance.now() - started) / 1000;
        if (operation === 'exec') deps.metrics.observeExec({ template, outcome }, seconds);
        else deps.metrics.observe(operation, { template, outcome }, seconds);
      }
      counted.resolve();
      if (audit)
        await (opened ? opened.then((record) => record.end(audit)) : deps.audit.record(audit)).catch(
          (err: unknown) =>
            deps.logger.warn({ err, sandbox: sandbox.metadata.name }, `${operation} audit failed`),
        );
    })()
      .catch((err: unknown) => deps.logger.error({ err, operation }, 'recording the call failed'))
      .finally(() => {
        counted.resolve();
        recorded.resolve();
      });
  }
}

/** The end of a run from its `exit`: `completed` with exit code 0, `failed` with another. */
export function exitOutcome(exit: ExitEvent): Outcome {
  return exit.reason === 'completed' ? (exit.exitCode === 0 ? 'completed' : 'failed') : exit.reason;
}
