import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import type { z } from 'zod';
import type { ExitEvent, ExecStartQuery, ExecRequest } from '../../core/index.ts';
import { RETRY_AFTER_SECONDS, type Sandbox } from '../../core/index.ts';
import { actorOf, endSpan, type Span } from '../../telemetry/index.ts';
import type { Caller } from '../auth/index.ts';
import type { ExecDeps } from './deps.ts';
import { HttpError } from '../errors/index.ts';
import type { Outcome } from '../metrics/index.ts';
import type { Answer, Reply } from '../openapi/index.ts';
import { answerDetached, detachRequested } from '../runs/index.ts';
import { timeoutMsOf, workingDirOf } from './checks.ts';
import type { execSandbox } from './operations.ts';
import { collectOutput, lastExit } from './output.ts';
import {
  refusalOutcome,
  sandboxdOf,
  templateOf,
  recordActivity,
  requireRunning,
  type OnSandbox,
} from '../request/index.ts';

type ExecReply = Reply<typeof execSandbox>;

/** What one exec call carries from its start to its `finish`. */
interface ExecCall {
  deps: ExecDeps;
  started: number;
  caller: Caller;
  span: Span;
  sandbox: Sandbox;
  template: string;
  execId: string;
  /** Set by `finish`: the span is ended and the exec recorded. */
  finished: boolean;
}

/**
 * `POST /sandboxes/{id}/exec`: a command run by the sandbox's sandboxd beside the template's
 * process, with the sandbox's environment. With `Accept: text/event-stream` sandboxd's stream
 * (`start`, `log`…, `exit`) is passed through as invoke's is; otherwise the output is collected
 * into one JSON answer, each stream kept up to 10 MiB. Either way a client that goes away
 * ends the run (SIGTERM, then SIGKILL). One span `svc.exec`, one audit record `SandboxExec`
 * (actor, exit code, duration; never the command or stdin), the exec metrics.
 */
export async function exec(
  c: Context<OnSandbox>,
  deps: ExecDeps,
  input: { query: z.output<typeof ExecStartQuery>; body: z.output<typeof ExecRequest> },
  reply: ExecReply,
): Promise<Answer<typeof execSandbox> | Response> {
  const { query, body } = input;
  const detach = detachRequested(c, query.detach);
  const started = performance.now();
  const caller: Caller = c.var.caller;
  const span = deps.tracing.tracer.startSpan(
    'svc.exec',
    { attributes: { actor: actorOf(caller.user) } },
    deps.tracing.extract(c.req.raw.headers),
  );
  let template = '';
  let call: ExecCall | undefined;
  try {
    const sandbox = c.var.sandbox;
    template = templateOf(sandbox);
    span.setAttributes({ template, sandbox: sandbox.metadata.name ?? '' });
    const cwd = workingDirOf(body.workingDir);
    // A detached exec has no client to end it: its timeout is what does.
    if (detach && timeoutMsOf(body.timeout) === 0)
      throw new HttpError(
        400,
        'timeout_required',
        'a detached exec needs a timeout: give "timeout" (seconds, or a duration such as 10m) above 0',
        { extra: { fields: [{ path: 'timeout', message: 'required when detach=true' }] } },
      );
    requireRunning(sandbox, 'exec');

    const execId = `exec-${randomUUID()}`;
    span.setAttribute('invoke_id', execId);
    const abort = new AbortController();
    const { answer: res } = await sandboxdOf(deps, sandbox, (sandboxd) =>
      sandboxd.runRaw(
        {
          runId: execId,
          kind: 'exec',
          argv: typeof body.command === 'string' ? ['sh', '-c', body.command] : body.command,
          cwd,
          env: body.env ?? {},
          timeoutMs: timeoutMsOf(body.timeout),
          ...(detach ? { detach } : {}),
        },
        Buffer.from(body.stdin ?? '', 'utf8'),
        abort.signal,
      ),
    );
    if (res.status === 429) {
      const refusal = res.body as { limit?: number; inflight?: number; message?: string };
      throw new HttpError(429, 'concurrency_exceeded', refusal.message ?? 'too many execs in flight', {
        extra: { limit: refusal.limit ?? 0, inflight: refusal.inflight ?? 0 },
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
      });
    }
    if (detach && res.status === 202) {
      recordActivity(deps, sandbox);
      const run = answerDetached(deps, {
        kind: 'exec',
        invokeId: execId,
        sandbox,
        caller,
        template,
        span,
        started,
      });
      return reply.json(202, run, { location: run.eventsUrl });
    }
    if (res.status !== 200 || !res.stream) {
      throw new HttpError(502, 'sandbox_error', `sandboxd refused the exec: ${JSON.stringify(res.body)}`);
    }
    call = { deps, started, caller, span, sandbox, template, execId, finished: false };
    const wantsStream = (c.req.header('accept') ?? '').includes('text/event-stream');
    return wantsStream
      ? streamed(c, call, res.stream, abort)
      : await collected(c, reply, call, res.stream, abort);
  } catch (err) {
    if (call?.finished) throw err; // recorded as the exec's outcome already
    endSpan(
      span,
      { duration_ms: Math.round(performance.now() - started), outcome: refusalOutcome(err) ?? 'error' },
      err,
    );
    const outcome = refusalOutcome(err);
    if (outcome && template)
      deps.metrics.observeExec({ template, outcome }, (performance.now() - started) / 1000);
    throw err;
  }
}

/** The JSON answer: the run's output collected, its exit, and whether output was cut. */
async function collected(
  c: Context,
  reply: ExecReply,
  call: ExecCall,
  upstream: Readable,
  abort: AbortController,
): Promise<Answer<typeof execSandbox> | Response> {
  // A caller that goes away before the answer cancels the run, as in a stream.
  const gone = () => abort.abort();
  c.req.raw.signal.addEventListener('abort', gone, { once: true });
  try {
    const out = await collectOutput(upstream);
    const exit = out.exit;
    if (!exit) {
      if (c.req.raw.signal.aborted) {
        finish(call, { invokeId: call.execId, exitCode: -1, durationMs: elapsed(call), reason: 'canceled' });
        // Nobody reads this answer; 499 (nginx's "client closed request") is for the request log.
        return new Response(null, { status: 499 });
      }
      call.deps.sandboxd.forget(call.sandbox.metadata.namespace ?? '', call.sandbox.metadata.name ?? '');
      finish(call, { invokeId: call.execId, exitCode: -1, durationMs: elapsed(call), reason: 'error' });
      throw new HttpError(
        502,
        'sandbox_unreachable',
        'the sandbox stopped answering before the command ended',
      );
    }
    finish(call, exit, out);
    const result = {
      exitCode: exit.exitCode,
      stdout: out.stdout,
      stderr: out.stderr,
      durationMs: exit.durationMs,
      reason: exit.reason,
      truncated: out.truncated,
    };
    return reply.json(200, result, { 'x-exec-id': call.execId });
  } finally {
    c.req.raw.signal.removeEventListener('abort', gone);
  }
}

/** The SSE answer: sandboxd's stream passed through byte for byte, as invoke's is. */
function streamed(c: Context, call: ExecCall, upstream: Readable, abort: AbortController): Response {
  c.header('content-type', 'text/event-stream; charset=utf-8');
  c.header('cache-control', 'no-cache');
  c.header('x-accel-buffering', 'no');
  c.header('x-exec-id', call.execId);
  return stream(c, async (out) => {
    out.onAbort(() => abort.abort());
    let previous: Buffer = Buffer.alloc(0);
    let last: Buffer = Buffer.alloc(0);
    let failure: string | undefined;
    try {
      for await (const chunk of upstream as AsyncIterable<Buffer>) {
        previous = last;
        last = chunk;
        await out.write(chunk);
        if (out.aborted) break;
      }
    } catch (err) {
      failure = (err as Error).message;
    }
    let exit = lastExit(Buffer.concat([previous, last]).toString('utf8'));
    if (!exit && !out.aborted) {
      call.deps.sandboxd.forget(call.sandbox.metadata.namespace ?? '', call.sandbox.metadata.name ?? '');
      exit = { invokeId: call.execId, exitCode: -1, durationMs: elapsed(call), reason: 'error' };
      await out.write(
        `event: error\ndata: ${JSON.stringify({ code: 'sandbox_unreachable', message: `the sandbox stopped answering: ${failure ?? 'the stream ended without an exit'}` })}\n\n` +
          `event: exit\ndata: ${JSON.stringify(exit)}\n\n`,
      );
    }
    finish(
      call,
      exit ?? { invokeId: call.execId, exitCode: -1, durationMs: elapsed(call), reason: 'canceled' },
    );
  });
}

const elapsed = (call: ExecCall) => Math.round(performance.now() - call.started);

/**
 * The end of an exec: its metrics, its span, its one audit record (not awaited: the answer
 * does not wait for the Event), and activity for `idleTimeout`, since a long exec is use.
 */
function finish(call: ExecCall, exit: ExitEvent, out?: { stdoutBytes: number; stderrBytes: number }): void {
  const { deps, sandbox, caller, span, template } = call;
  call.finished = true;
  const outcome: Outcome =
    exit.reason === 'completed' ? (exit.exitCode === 0 ? 'completed' : 'failed') : exit.reason;
  deps.metrics.observeExec({ template, outcome }, (performance.now() - call.started) / 1000);
  endSpan(span, {
    invoke_id: call.execId,
    exit_code: exit.exitCode,
    duration_ms: exit.durationMs,
    ...(out ? { bytes_stdout: out.stdoutBytes, bytes_stderr: out.stderrBytes } : {}),
    outcome,
  });
  void deps.audit
    .record({
      sandbox,
      reason: 'SandboxExec',
      type: outcome === 'completed' || outcome === 'failed' || outcome === 'canceled' ? 'Normal' : 'Warning',
      message: `exec ${call.execId} by ${caller.user}: ${exit.reason}, exit code ${exit.exitCode}, ${exit.durationMs} ms`,
      actor: caller.user,
    })
    .catch((err: unknown) => deps.logger.warn({ err, sandbox: sandbox.metadata.name }, 'exec audit failed'));
  const { namespace = '', name = '' } = sandbox.metadata;
  recordActivity(deps, deps.cache.get(namespace, name) ?? sandbox);
}
