import { Hono } from 'hono';
import type { AgentDeps } from './deps.ts';
import { notFound } from '../errors/index.ts';
import { honoPaths, route } from '../openapi/index.ts';
import { requireAgentMode } from './checks.ts';
import { configure } from './configure.ts';
import { invoke } from './invoke.ts';
import { agentOperations, cancelInvoke, configureSandbox, invokeSandbox } from './operations.ts';
import { auditingRefusals } from './refusals.ts';
import { onOwnedSandbox, type OnSandbox, sandboxdOf } from '../request/index.ts';

/** Agent mode: configure once, invoke on demand, cancel by invoke id. */
export function agentRoutes(deps: AgentDeps): Hono<OnSandbox> {
  const app = new Hono<OnSandbox>();
  // Audited first: a refusal by the sandbox's lookup (403) is recorded as any other.
  app.on('POST', honoPaths(configureSandbox), auditingRefusals(deps, 'configure'));
  app.on('POST', honoPaths(invokeSandbox), auditingRefusals(deps, 'invoke'));
  onOwnedSandbox(app, deps, agentOperations);

  route(app, configureSandbox, (c) => configure(c, deps));
  route(app, invokeSandbox, (c, { query }, reply) => invoke(c, deps, query, reply));

  // Runs live in sandboxd, so any API replica can cancel any invoke: no sticky routing.
  route(app, cancelInvoke, async (c, { body }, reply) => {
    const sandbox = c.var.sandbox;
    requireAgentMode(sandbox);
    const { invokeId } = body;
    const { client: sandboxd, answer: runs } = await sandboxdOf(deps, sandbox, (c) => c.runs());
    const inflight = runs.some((r) => r.runId === invokeId && r.kind === 'invoke');
    if (!inflight || !(await sandboxd.cancel(invokeId)))
      throw notFound(`no invoke ${invokeId} is in flight in sandbox ${sandbox.metadata.name}`);
    return reply.json(202, { invokeId, status: 'canceling' });
  });
  return app;
}
