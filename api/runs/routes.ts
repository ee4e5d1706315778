import { Hono, type Context } from 'hono';
import type { z } from 'zod';
import { NamespaceQuery, RunEventsQuery, RunId, type RunSummary, type Sandbox } from '../../core/index.ts';
import type { SandboxdRunRecord } from '../../kube/index.ts';
import { sandboxdOf } from '../agent/index.ts';
import type { Caller } from '../auth/index.ts';
import type { ApiDeps } from '../deps.ts';
import { HttpError, notFound, validationError } from '../errors/index.ts';
import { relayEvents } from '../exec/index.ts';
import { ownedSandbox } from '../sandboxes/index.ts';

/**
 * A sandbox's runs (invokes and execs, attached or detached): the list, each one's events
 * (replayed from the start or after `Last-Event-ID`, then followed to `exit`) and cancel.
 * Runs and their events live in sandboxd, so any API replica serves any of them.
 */
export function runRoutes(deps: ApiDeps): Hono {
  const app = new Hono();

  app.get('/:id/runs', async (c) => {
    query(c, NamespaceQuery.strict());
    const sandbox = await runningSandbox(c, deps);
    const { answer: records } = await sandboxdOf(deps, sandbox, (s) => s.records());
    return c.json({ items: records.filter(isApiRun).map(summary) });
  });

  app.get('/:id/runs/:invokeId/events', async (c) => {
    const q = query(c, RunEventsQuery);
    const invokeId = runId(c);
    const header = c.req.header('last-event-id');
    // The header wins: an EventSource sends it on reconnecting to the same URL.
    const after = header ?? q.lastEventId;
    if (after !== undefined && !/^\d{1,15}$/.test(after))
      throw new HttpError(400, 'invalid_request', 'invalid request: Last-Event-ID must be an event id', {
        extra: { fields: [{ path: 'Last-Event-ID', message: 'must be an integer ≥ 0' }] },
      });
    const sandbox = await runningSandbox(c, deps);
    const abort = new AbortController();
    const { answer: res } = await sandboxdOf(deps, sandbox, (s) => s.events(invokeId, after, abort.signal));
    // Install runs are the operator's: not among a sandbox's runs.
    if (res.statusCode !== 200 || res.headers['x-run-kind'] === 'install') {
      res.resume();
      throw unknownRun(sandbox, invokeId);
    }
    audit(deps, sandbox, c.var.caller, 'RunAttached', `run ${invokeId} attached by ${c.var.caller.user}`);
    return relayEvents(c, res, abort);
  });

  app.post('/:id/runs/:invokeId/cancel', async (c) => {
    query(c, NamespaceQuery.strict());
    const invokeId = runId(c);
    const sandbox = await runningSandbox(c, deps);
    const { client, answer: records } = await sandboxdOf(deps, sandbox, (s) => s.records());
    const run = records.find((r) => r.runId === invokeId && isApiRun(r) && r.state === 'running');
    if (!run || !(await client.cancel(invokeId))) throw unknownRun(sandbox, invokeId, ' in flight');
    audit(
      deps,
      sandbox,
      c.var.caller,
      'RunCanceled',
      `${run.kind} ${invokeId} canceled by ${c.var.caller.user}`,
    );
    return c.json({ invokeId, status: 'canceling' as const }, 202);
  });
  return app;
}

const isApiRun = (r: SandboxdRunRecord) => r.kind === 'invoke' || r.kind === 'exec';

function summary(r: SandboxdRunRecord): RunSummary {
  return {
    invokeId: r.runId,
    kind: r.kind as RunSummary['kind'],
    state: r.state,
    startedAt: r.startedAt,
    exitCode: r.exitCode,
    durationMs: r.durationMs,
    ...(r.reason ? { reason: r.reason } : {}),
    detached: r.detached,
  };
}

function query<T extends z.ZodType>(c: Context, schema: T): z.infer<T> {
  const parsed = schema.safeParse(c.req.query());
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

function runId(c: Context): string {
  const parsed = RunId.safeParse(c.req.param('invokeId'));
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

/** Owner-or-admin, then Running: a run's events live in the sandbox's sandboxd. */
async function runningSandbox(c: Context, deps: ApiDeps): Promise<Sandbox> {
  const sandbox = await ownedSandbox(c, deps);
  const phase = sandbox.status?.phase ?? 'Pending';
  if (phase !== 'Running')
    throw new HttpError(
      409,
      'not_running',
      `sandbox ${sandbox.metadata.name} is ${phase}; its runs need it Running`,
      {
        extra: { phase },
      },
    );
  return sandbox;
}

const unknownRun = (sandbox: Sandbox, invokeId: string, what = '') =>
  notFound(`no run ${invokeId}${what} in sandbox ${sandbox.metadata.name} (ended runs are kept 15 minutes)`);

/** One audit record (never argv or stdin); not awaited, as exec's is not. */
function audit(deps: ApiDeps, sandbox: Sandbox, caller: Caller, reason: string, message: string): void {
  void deps.audit
    .record({ sandbox, reason, type: 'Normal', message, actor: caller.user })
    .catch((err: unknown) => deps.logger.warn({ err, sandbox: sandbox.metadata.name }, 'run audit failed'));
}
