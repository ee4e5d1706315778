import type { Context } from 'hono';
import type { z } from 'zod';
import type { LogsQuery, SandboxLogs } from '../../core/index.ts';
import type { ExecDeps } from './deps.ts';
import { HttpError } from '../errors/index.ts';
import type { Answer, Reply } from '../openapi/index.ts';
import type { getSandboxLogs } from './operations.ts';
import { sandboxdOf, requireRunning, type OnSandbox, relayEvents } from '../request/index.ts';

/**
 * `GET /sandboxes/{id}/logs`: the template process's recent stdout and stderr, which its
 * sandboxd keeps (the last 1 MiB). With `?follow=true` and `Accept: text/event-stream`, an SSE
 * stream of `log` events (invoke's shape): the kept output, then new output as it is written,
 * until the caller goes away.
 */
export async function logs(
  c: Context<OnSandbox>,
  deps: ExecDeps,
  query: z.output<typeof LogsQuery>,
  reply: Reply<typeof getSandboxLogs>,
): Promise<Answer<typeof getSandboxLogs> | Response> {
  const sandbox = c.var.sandbox;
  requireRunning(sandbox, 'reading its logs');
  const follow = query.follow === 'true' && (c.req.header('accept') ?? '').includes('text/event-stream');
  if (!follow) {
    const { answer } = await sandboxdOf(deps, sandbox, (sandboxd) => sandboxd.logs());
    if (answer.status !== 200)
      throw new HttpError(502, 'sandbox_error', `sandboxd did not give the logs: ${answer.status}`);
    // sandboxd's own answer, passed on as it is: its shape is the API's.
    return reply.json(200, answer.body as SandboxLogs);
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
