import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { SandboxUsage } from '../../core/index.ts';
import type { UsageDeps } from './deps.ts';
import { HttpError } from '../errors/index.ts';
import { route } from '../openapi/index.ts';
import { getSandboxUsage, usageOperations } from './operations.ts';
import { sandboxdOf, requireRunning, onOwnedSandbox, type OnSandbox } from '../request/index.ts';

/**
 * `GET /sandboxes/{id}/usage`: what the sandbox uses now, as its sandboxd reads it from the
 * Pod's cgroup and its workspace (sandboxd/activity.go). `?history=S` adds the CPU and memory
 * samples of the last S seconds (at most 600), for charts. With `Accept: text/event-stream`,
 * a `usage` event every `usageEveryMs` (2 s by default) until the caller leaves. Looking is
 * not use: neither form counts as activity for `idleTimeout` (a console left open on the
 * sandbox's page must not keep it running).
 */
export function usageRoutes(deps: UsageDeps): Hono<OnSandbox> {
  const app = new Hono<OnSandbox>();
  onOwnedSandbox(app, deps, usageOperations, { activity: false });
  route(app, getSandboxUsage, async (c, { query }, reply) => {
    const sandbox = c.var.sandbox;
    requireRunning(sandbox, 'reading its usage');
    // sandboxd's answer is passed on as it came (sandboxd/activity.go writes SandboxUsage).
    const read = async (history?: number) => {
      const { answer } = await sandboxdOf(deps, sandbox, (sandboxd) => sandboxd.usage(history));
      if (answer.status !== 200)
        throw new HttpError(502, 'sandbox_error', `sandboxd did not give its usage: ${answer.status}`);
      return answer.body as SandboxUsage;
    };
    const history = query.history;
    if (!(c.req.header('accept') ?? '').includes('text/event-stream'))
      return reply.json(200, await read(history));
    const first = await read(history);
    const every = deps.usageEveryMs ?? 2_000;
    return streamSSE(c, async (out) => {
      let next: SandboxUsage | undefined = first;
      while (!out.aborted && !out.closed) {
        if (!next) break;
        await out.writeSSE({ event: 'usage', data: JSON.stringify(next) });
        await out.sleep(every);
        next = out.aborted ? undefined : await read().catch(() => undefined);
      }
    });
  });
  return app;
}
