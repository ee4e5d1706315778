import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions<T> {
  /** What is awaited, for the message on timeout; called then, so it may show state it read. */
  describe: string | (() => string);
  timeoutMs: number;
  /** Pause between reads; 100 ms unless told. */
  intervalMs?: number;
  /** When an answer is the one awaited; by default when it is truthy. */
  until?: (value: T) => boolean;
  /** The part of an answer the message shows (a Sandbox's status, not its managedFields). */
  show?: (value: T) => unknown;
}

/**
 * Calls `read` until its answer is the one awaited, and resolves with that answer. A read
 * that throws counts as not yet (the apiserver or a port may not answer at first). After
 * `timeoutMs` it rejects with what was awaited and the last answer or error seen, so a
 * failure says where things stood. For hooks, benches and `make dev`, where `expect.poll`
 * cannot run; inside a test, `expect.poll` is as good.
 */
export async function eventually<T>(read: () => T | Promise<T>, opts: EventuallyOptions<T>): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  const done = opts.until ?? ((value: T) => Boolean(value));
  let last: { value: T } | { error: unknown } | undefined;
  for (;;) {
    try {
      const value = await read();
      if (done(value)) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      const what = typeof opts.describe === 'string' ? opts.describe : opts.describe();
      const seen = last && 'value' in last && opts.show ? { value: opts.show(last.value) } : last;
      // A `false` says nothing the message does not: a yes-or-no probe's state is in `describe`.
      const tail = seen && 'value' in seen && seen.value === false ? '' : `; last ${shown(seen)}`;
      throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${what}${tail}`);
    }
    await sleep(Math.min(opts.intervalMs ?? 100, left));
  }
}

function shown(last: { value: unknown } | { error: unknown } | undefined): string {
  if (last === undefined) return 'nothing (no read finished)';
  if ('error' in last)
    return `error: ${last.error instanceof Error ? last.error.message : String(last.error)}`;
  try {
    return `answer: ${JSON.stringify(last.value)?.slice(0, 2_000) ?? String(last.value)}`;
  } catch {
    return `answer: ${String(last.value)}`;
  }
}
