import { Hono } from 'hono';
import { CancelRequest } from '../../core/index.ts';
import type { ApiDeps } from '../deps.ts';
import { notFound, validationError } from '../errors/index.ts';
import { ownedSandbox, readJson } from '../sandboxes/index.ts';
import { requireAgentMode, sandboxdOf } from './checks.ts';
import { configure } from './configure.ts';
import { invoke } from './invoke.ts';
import { auditingRefusals } from './refusals.ts';

/** Agent mode: configure once, invoke on demand, cancel by invoke id. */
export function agentRoutes(deps: ApiDeps): Hono {
  const app = new Hono();
  app.post('/:id/configure', (c) => auditingRefusals(c, deps, 'configure', () => configure(c, deps)));
  app.post('/:id/invoke', (c) => auditingRefusals(c, deps, 'invoke', () => invoke(c, deps)));

  // Runs live in sandboxd, so any API replica can cancel any invoke: no sticky routing.
  app.post('/:id/invoke/cancel', async (c) => {
    const sandbox = await ownedSandbox(c, deps);
    requireAgentMode(sandbox);
    const parsed = CancelRequest.safeParse(await readJson(c.req.raw));
    if (!parsed.success) throw validationError(parsed.error);
    const { invokeId } = parsed.data;
    const { client: sandboxd, answer: runs } = await sandboxdOf(deps, sandbox, (c) => c.runs());
    const inflight = runs.some((r) => r.runId === invokeId && r.kind === 'invoke');
    if (!inflight || !(await sandboxd.cancel(invokeId)))
      throw notFound(`no invoke ${invokeId} is in flight in sandbox ${sandbox.metadata.name}`);
    return c.json({ invokeId, status: 'canceling' }, 202);
  });
  return app;
}
