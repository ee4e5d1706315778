import { ServerResponse } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { RETRY_AFTER_SECONDS } from '../../core/index.ts';
import { HttpError } from '../errors/index.ts';
import type { Slot, UserSlots } from './slots.ts';

/**
 * Holds one of the caller's slots for the whole exchange, or refuses with 429: the
 * `concurrency_exceeded` body of a sandbox's own caps, `Retry-After: 5`. Mounted after
 * authentication and before anything reads the body, so a refused call costs no read.
 *
 * The exchange ends when Node's response closes, which it does on every exit: the answer
 * sent to its end (a stream too), a refusal or error answered, the client gone. In-process
 * (`app.request`, no Node response): at once for an error, else when the response's body
 * ends or is cancelled.
 */
export function perUserConcurrency(slots: UserSlots): MiddlewareHandler {
  return async (c, next) => {
    const { user } = c.var.caller;
    const slot = slots.take(user);
    if (!slot) throw overCap(slots.max, slots.inflight(user));
    const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
    if (outgoing instanceof ServerResponse) {
      if (outgoing.closed) slot.release();
      else outgoing.once('close', () => slot.release());
      await next();
      return;
    }
    try {
      await next();
    } catch (err) {
      slot.release();
      throw err;
    }
    // A refusal or error is answered whole; only a success may still be streaming.
    if (c.res.status >= 400) slot.release();
    else releaseWithBody(c, slot);
  };
}

/** Ties the slot to the response's body: released at its end, its cancel, or at once without one. */
function releaseWithBody(c: Context, slot: Slot): void {
  const res = c.res;
  if (!res.body) return slot.release();
  const reader: ReadableStreamDefaultReader<Uint8Array> = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          slot.release();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        slot.release();
        controller.error(err);
      }
    },
    cancel(reason) {
      slot.release();
      return reader.cancel(reason);
    },
  });
  c.res = new Response(body, res);
}

const overCap = (limit: number, inflight: number) =>
  new HttpError(
    429,
    'concurrency_exceeded',
    `you have ${inflight} calls in flight (exec, invoke, configure and file transfers count), the most one user may have at once; retry after ${RETRY_AFTER_SECONDS} seconds`,
    { extra: { limit, inflight }, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } },
  );
