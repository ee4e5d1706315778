import type { Stage } from '../../core/index.ts';
import type { Found, Pass, StepResult } from './context.ts';
import { NameConflict, onConflict } from './conflict.ts';

/**
 * Runs one step; a NameConflict it meets ends the pass (`onConflict`) instead of failing it.
 * A step that finds nothing for the steps after it finds `undefined`.
 */
export function run<T>(pass: Pass, step: (pass: Pass) => Promise<Found<T>> | Found<T>): Promise<Found<T>>;
export function run(
  pass: Pass,
  step: (pass: Pass) => Promise<StepResult> | StepResult,
): Promise<Found<undefined>>;
export async function run(
  pass: Pass,
  step: (pass: Pass) => Promise<StepResult> | StepResult,
): Promise<Found<unknown>> {
  try {
    const r = await step(pass);
    return r.stage ? { ...r, stage: r.stage } : { found: undefined, ...r, stage: undefined };
  } catch (err) {
    if (err instanceof NameConflict) return onConflict(pass, err);
    throw err;
  }
}

/** Steps that depend on each other, as one: `next` takes what `first` found, unless it ended the pass. */
export async function inOrder<A, B>(
  first: Promise<Found<A>>,
  next: (found: A) => Promise<Found<B>>,
): Promise<Found<B>> {
  const a = await first;
  if (a.stage) return a;
  const b = await next(a.found);
  return found(merged([a, b]), b);
}

/** Independent steps, as one: together; the first stage among them ends the pass. */
export async function together<A, B>(a: Promise<Found<A>>, b: Promise<Found<B>>): Promise<Found<[A, B]>> {
  const [ra, rb] = await Promise.all([a, b]);
  const result = merged([ra, rb]);
  if (ra.stage || rb.stage) return { ...result, stage: (ra.stage ?? rb.stage) as Stage };
  return { ...result, stage: undefined, found: [ra.found, rb.found] };
}

/** What `r` found, mapped, unless it ended the pass. */
export function mapFound<A, B>(r: Found<A>, map: (found: A) => B): Found<B> {
  return r.stage ? r : { ...r, found: map(r.found) };
}

function found<T>(result: StepResult, last: Found<T>): Found<T> {
  return last.stage ? { ...result, stage: last.stage } : { ...result, stage: undefined, found: last.found };
}

/** Conditions in order, the soonest requeue, the first stage, status parts, the last Sandbox written. */
function merged(results: StepResult[]): StepResult {
  const requeues = results.flatMap((r) => (r.requeueMs === undefined ? [] : [r.requeueMs]));
  const stage = results.find((r) => r.stage)?.stage;
  const parts = results.flatMap((r) => (r.status ? [r.status] : []));
  const sandbox = results.findLast((r) => r.sandbox)?.sandbox;
  return {
    conditions: results.flatMap((r) => r.conditions ?? []),
    ...(requeues.length > 0 ? { requeueMs: Math.min(...requeues) } : {}),
    ...(stage ? { stage } : {}),
    ...(parts.length > 0 ? { status: Object.assign({}, ...parts) as StepResult['status'] } : {}),
    ...(sandbox ? { sandbox } : {}),
  };
}
