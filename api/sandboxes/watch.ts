import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Sandbox } from '../../core/index.ts';
import type { SandboxChange } from '../cluster/index.ts';
import type { SandboxesDeps } from './deps.ts';
import { HttpError } from '../errors/index.ts';
import { canAccess } from '../request/index.ts';
import { present } from './access.ts';

/** A comment line now and then, so proxies and browsers keep an idle stream open. */
const KEEPALIVE_MS = 15_000;

/**
 * `GET /sandboxes?watch=true`: the sandboxes the caller may see, each as an `added` event,
 * then every change to them from the API's informer cache (`added`, `modified`, `deleted`)
 * until the client goes away. Filtered like the list: namespace, owner (admins see all) and
 * `mode`. A sandbox being deleted leaves the list, so its deletionTimestamp is a `deleted`.
 * The stream is only served to a client that asks for one, so that nothing waiting for JSON
 * (a program, a fuzzer) hangs on a stream that never ends.
 */
export function watchSandboxes(
  c: Context,
  deps: SandboxesDeps,
  filter: { namespace: string; mode?: 'code' | 'agent' | undefined; phase?: string | undefined },
): Response {
  if (!(c.req.header('accept') ?? '').includes('text/event-stream'))
    throw invalid('watch', 'needs Accept: text/event-stream');
  if (filter.phase) throw invalid('phase', 'cannot be combined with watch=true (filter the events instead)');
  const caller = c.var.caller;
  const visible = (s: Sandbox) =>
    s.metadata.namespace === filter.namespace &&
    canAccess(caller, s) &&
    (filter.mode ? s.spec.mode === filter.mode : true);
  return streamSSE(c, async (out) => {
    // Changes that arrive while the first list is written queue behind it, in order.
    let chain = Promise.resolve();
    const send = (event: SandboxChange, s: Sandbox) => {
      chain = chain
        .then(() => out.writeSSE({ event, data: JSON.stringify(present(s)) }))
        .catch(() => undefined);
    };
    const unsubscribe = deps.cache.subscribe((change, s) => {
      if (!visible(s)) return;
      send(change !== 'deleted' && s.metadata.deletionTimestamp ? 'deleted' : change, s);
    });
    const keepalive = setInterval(
      () => void out.write(': keepalive\n\n').catch(() => undefined),
      KEEPALIVE_MS,
    );
    const ended = new Promise<void>((resolve) => out.onAbort(resolve));
    try {
      for (const s of deps.cache.list(filter.namespace)) {
        if (visible(s) && !s.metadata.deletionTimestamp) send('added', s);
      }
      await ended;
    } finally {
      clearInterval(keepalive);
      unsubscribe();
    }
  });
}

/** The 400 of a field, shaped like a validation error's. */
const invalid = (path: string, message: string) =>
  new HttpError(400, 'invalid_request', `invalid request: ${path}: ${message}`, {
    extra: { fields: [{ path, message }] },
  });
