import { Hono } from 'hono';
import { ExecCancelRequest } from '../../core/index.ts';
import { sandboxdOf } from '../agent/index.ts';
import type { ApiDeps } from '../deps.ts';
import { notFound, validationError } from '../errors/index.ts';
import { ownedSandbox, readJson } from '../sandboxes/index.ts';
import { requireRunning } from './checks.ts';
import { exec } from './exec.ts';
import { logs } from './logs.ts';

/** Code mode's commands and output: exec (JSON or SSE), its cancel, the template's logs. */
export function execRoutes(deps: ApiDeps): Hono {
  const app = new Hono();
  app.post('/:id/exec', (c) => exec(c, deps));

  // The exec runs in sandboxd, so any API replica can cancel it, as with invoke.
  app.post('/:id/exec/cancel', async (c) => {
    const sandbox = await ownedSandbox(c, deps);
    const parsed = ExecCancelRequest.safeParse(await readJson(c.req.raw));
    if (!parsed.success) throw validationError(parsed.error);
    requireRunning(sandbox, 'cancelling an exec');
    const { invokeId } = parsed.data;
    const { client: sandboxd, answer: runs } = await sandboxdOf(deps, sandbox, (c) => c.runs());
    const inflight = runs.some((r) => r.runId === invokeId && r.kind === 'exec');
    if (!inflight || !(await sandboxd.cancel(invokeId)))
      throw notFound(`no exec ${invokeId} is in flight in sandbox ${sandbox.metadata.name}`);
    return c.json({ invokeId, status: 'canceling' as const }, 202);
  });

  app.get('/:id/logs', (c) => logs(c, deps));
  return app;
}
