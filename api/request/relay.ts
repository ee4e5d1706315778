import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { stream } from 'hono/streaming';

/**
 * sandboxd's event stream passed to the caller byte for byte (logs, a run's events). The
 * caller going away, or sandboxd, ends the stream and aborts the upstream request; a caller
 * of a run's events reconnects with Last-Event-ID.
 */
export function relayEvents(c: Context, upstream: IncomingMessage, abort: AbortController): Response {
  c.header('content-type', 'text/event-stream; charset=utf-8');
  c.header('cache-control', 'no-cache');
  c.header('x-accel-buffering', 'no');
  return stream(c, async (out) => {
    out.onAbort(() => abort.abort());
    try {
      for await (const chunk of upstream as AsyncIterable<Buffer>) {
        await out.write(chunk);
        if (out.aborted) break;
      }
    } catch {
      // The caller or sandboxd went away: the stream ends either way.
    } finally {
      abort.abort();
    }
  });
}
