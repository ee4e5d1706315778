// Reading a run's events so that a dropped connection loses nothing: each event carries an
// id, and a reconnect asks for the events after the last one seen (Last-Event-ID).
import { ApiError } from './errors.ts';
import type { EventStream, StreamEvent } from './sse.ts';
import type { SseEvents } from './generated/sse-events.ts';

export type RunEvents = SseEvents['getRunEvents'];

export interface AttachOptions {
  namespace?: string;
  signal?: AbortSignal;
  /** Resume after this event id (the last one a previous reader saw); none: from the start. */
  lastEventId?: string;
  /** Reconnects in a row that bring no event before giving up; default 5. */
  maxReconnects?: number;
  /** Wait before a reconnect, doubled each time it brings nothing; default 500 ms. */
  reconnectDelayMs?: number;
}

/**
 * A run's events from `open` (one connection, after an id), reconnecting after the last id
 * seen whenever a connection ends before the run's `exit`. A refusal (404: the run is not
 * known, 403…) is thrown at once; a connection that fails is retried.
 */
export async function* resumingEvents(
  open: (lastEventId: string | undefined) => Promise<EventStream<RunEvents>>,
  opts: AttachOptions,
): AsyncGenerator<StreamEvent<RunEvents>, void, undefined> {
  let last = opts.lastEventId;
  let failures = 0;
  const max = opts.maxReconnects ?? 5;
  for (;;) {
    let progressed = false;
    try {
      const stream = await open(last);
      for await (const e of stream) {
        progressed = true;
        if (e.id !== undefined) last = e.id;
        yield e;
        if (e.event === 'exit') return;
      }
      // A stream that ends cleanly with nothing in it: the run's exit was before `last`.
      if (!progressed) return;
    } catch (err) {
      if (err instanceof ApiError || opts.signal?.aborted) throw err;
    }
    if (opts.signal?.aborted) return;
    failures = progressed ? 0 : failures + 1;
    if (failures > max) throw new Error(`the run's events could not be read after ${max} reconnects`);
    const delay = (opts.reconnectDelayMs ?? 500) * 2 ** Math.max(0, failures - 1);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
