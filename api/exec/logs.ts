import type { Context } from 'hono';
import { LogsQuery } from '../../core/index.ts';
import { sandboxdOf } from '../agent/index.ts';
import type { ApiDeps } from '../deps.ts';
import { HttpError } from '../errors/index.ts';
import { ownedSandbox } from '../sandboxes/index.ts';
import { requireRunning, strictQuery } from './checks.ts';
import { relayEvents } from './relay.ts';

/**
 * `GET /sandboxes/{id}/logs`: the template process's recent stdout and stderr, which its
 * sandboxd keeps (the last 1 MiB). With `?follow=true` and `Accept: text/event-stream`, an SSE
 * stream of `log` events (invoke's shape): the kept output, then new output as it is written,
 * until the caller goes away.
 */
export async function logs(c: Context, deps: ApiDeps): Promise<Response> {
  const query = strictQuery(c, LogsQuery);
  const sandbox = await ownedSandbox(c, deps);
  requireRunning(sandbox, 'reading its logs');
  const follow = query.follow === 'true' && (c.req.header('accept') ?? '').includes('text/event-stream');
  if (!follow) {
    const { answer } = await sandboxdOf(deps, sandbox, (sandboxd) => sandboxd.logs());
    if (answer.status !== 200)
      throw new HttpError(502, 'sandbox_error', `sandboxd did not give the logs: ${answer.status}`);
    return c.json(answer.body as object);
  }
  const abort = new AbortController();
  const { answer: upstream } = await sandboxdOf(deps, sandbox, (sandboxd) =>
    sandboxd.followLogs(abort.signal),
  );
  if (upstream.statusCode !== 200) {
    upstream.resume();
    throw new HttpError(502, 'sandbox_error', `sandboxd did not follow the logs: ${upstream.statusCode}`);
  }
  return relayEvents(c, upstream, abort);
}
