import { Hono } from 'hono';
import type { ExecDeps } from './deps.ts';
import { notFound } from '../errors/index.ts';
import { route } from '../openapi/index.ts';
import { exec } from './exec.ts';
import { logs } from './logs.ts';
import { cancelExec, execOperations, execSandbox, getSandboxLogs } from './operations.ts';
import { sandboxdOf, onOwnedSandbox, requireRunning, type OnSandbox } from '../request/index.ts';

/** Code mode's commands and output: exec (JSON or SSE), its cancel, the template's logs. */
export function execRoutes(deps: ExecDeps): Hono<OnSandbox> {
  const app = new Hono<OnSandbox>();
  onOwnedSandbox(app, deps, execOperations);

  route(app, execSandbox, (c, input, reply) => exec(c, deps, input, reply));

  // The exec runs in sandboxd, so any API replica can cancel it, as with invoke.
  route(app, cancelExec, async (c, { body }, reply) => {
    const sandbox = c.var.sandbox;
    requireRunning(sandbox, 'cancelling an exec');
    const { invokeId } = body;
    const { client: sandboxd, answer: runs } = await sandboxdOf(deps, sandbox, (c) => c.runs());
    const inflight = runs.some((r) => r.runId === invokeId && r.kind === 'exec');
    if (!inflight || !(await sandboxd.cancel(invokeId)))
      throw notFound(`no exec ${invokeId} is in flight in sandbox ${sandbox.metadata.name}`);
    return reply.json(202, { invokeId, status: 'canceling' });
  });

  route(app, getSandboxLogs, (c, { query }, reply) => logs(c, deps, query, reply));
  return app;
}
