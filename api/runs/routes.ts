import { Hono, type Context } from 'hono';
import { RunId, type RunSummary, type Sandbox } from '../../core/index.ts';
import type { SandboxdRunRecord } from '../../kube/index.ts';
import type { Caller } from '../auth/index.ts';
import type { RunsDeps } from './deps.ts';
import { HttpError, notFound } from '../errors/index.ts';
import { parsed, route } from '../openapi/index.ts';
import { cancelRun, getRunEvents, listRuns, runOperations } from './operations.ts';
import { sandboxdOf, onOwnedSandbox, requireRunning, type OnSandbox, relayEvents } from '../request/index.ts';

/**
 * A sandbox's runs (invokes and execs, attached or detached): the list, each one's events
 * (replayed from the start or after `Last-Event-ID`, then followed to `exit`) and cancel.
 * Runs and their events live in sandboxd, so any API replica serves any of them.
 */
export function runRoutes(deps: RunsDeps): Hono<OnSandbox> {
  const app = new Hono<OnSandbox>();
  onOwnedSandbox(app, deps, runOperations);

  route(app, listRuns, async (c, _, reply) => {
    const sandbox = c.var.sandbox;
    requireRunning(sandbox, 'its runs', 'need');
    const { answer: records } = await sandboxdOf(deps, sandbox, (s) => s.records());
    return reply.json(200, { items: records.filter(isApiRun).map(summary) });
  });

  route(app, getRunEvents, async (c, { query }) => {
    const invokeId = runId(c);
    const header = c.req.header('last-event-id');
    // The header wins: an EventSource sends it on reconnecting to the same URL.
    const after = header ?? query.lastEventId;
    if (after !== undefined && !/^\d{1,15}$/.test(after))
      throw new HttpError(400, 'invalid_request', 'invalid request: Last-Event-ID must be an event id', {
        extra: { fields: [{ path: 'Last-Event-ID', message: 'must be an integer ≥ 0' }] },
      });
    const sandbox = c.var.sandbox;
    requireRunning(sandbox, 'its runs', 'need');
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

  route(app, cancelRun, async (c, _, reply) => {
    const invokeId = runId(c);
    const sandbox = c.var.sandbox;
    requireRunning(sandbox, 'its runs', 'need');
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
    return reply.json(202, { invokeId, status: 'canceling' });
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

/** The `{invokeId}` of the path, checked (its 400 names no field, as it always has). */
const runId = (c: Context) => parsed(RunId, c.req.param('invokeId'));

const unknownRun = (sandbox: Sandbox, invokeId: string, what = '') =>
  notFound(`no run ${invokeId}${what} in sandbox ${sandbox.metadata.name} (ended runs are kept 15 minutes)`);

/** One audit record (never argv or stdin); not awaited, as exec's is not. */
function audit(deps: RunsDeps, sandbox: Sandbox, caller: Caller, reason: string, message: string): void {
  void deps.audit
    .record({ sandbox, reason, type: 'Normal', message, actor: caller.user })
    .catch((err: unknown) => deps.logger.warn({ err, sandbox: sandbox.metadata.name }, 'run audit failed'));
}
