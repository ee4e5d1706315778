import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import type { z } from 'zod';
import type { ExitEvent, ExecStartQuery, ExecRequest } from '../../core/index.ts';
import { RETRY_AFTER_SECONDS } from '../../core/index.ts';
import type { ExecDeps } from './deps.ts';
import { HttpError } from '../errors/index.ts';
import type { Answer, Reply } from '../openapi/index.ts';
import { answerDetached, detachRequested } from '../runs/index.ts';
import { timeoutMsOf, workingDirOf } from './checks.ts';
import type { execSandbox } from './operations.ts';
import { collectOutput, lastExit } from './output.ts';
import {
  exitOutcome,
  observed,
  recordActivity,
  requireRunning,
  sandboxdOf,
  type CallEnd,
  type Observed,
  type ObservedCall,
  type OnSandbox,
} from '../request/index.ts';

type ExecReply = Reply<typeof execSandbox>;

/** What one exec call carries from its start to its end. */
interface ExecCall extends ObservedCall {
  deps: ExecDeps;
  execId: string;
}

/**
 * `POST /sandboxes/{id}/exec`: a command run by the sandbox's sandboxd beside the template's
 * process, with the sandbox's environment. With `Accept: text/event-stream` sandboxd's stream
 * (`start`, `log`…, `exit`) is passed through as invoke's is; otherwise the output is collected
 * into one JSON answer, each stream kept up to 10 MiB. Either way a client that goes away
 * ends the run (SIGTERM, then SIGKILL). One span `svc.exec`, one audit record `SandboxExec`
 * (actor, exit code, duration; never the command or stdin), the exec metrics.
 */
export function exec(
  c: Context<OnSandbox>,
  deps: ExecDeps,
  input: { query: z.output<typeof ExecStartQuery>; body: z.output<typeof ExecRequest> },
  reply: ExecReply,
): Promise<Answer<typeof execSandbox> | Response> {
  return observed(c, deps, 'exec', (call) => executed(c, deps, input, reply, call));
}

async function executed(
  c: Context<OnSandbox>,
  deps: ExecDeps,
  input: { query: z.output<typeof ExecStartQuery>; body: z.output<typeof ExecRequest> },
  reply: ExecReply,
  observedCall: ObservedCall,
): Promise<Observed<Answer<typeof execSandbox> | Response>> {
  const { query, body } = input;
  const detach = detachRequested(c, query.detach);
  const { started, caller, span, sandbox } = observedCall;
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
    const { run, end } = answerDetached({ kind: 'exec', invokeId: execId, sandbox, caller, started });
    return { answer: reply.json(202, run, { location: run.eventsUrl }), end };
  }
  if (res.status !== 200 || !res.stream) {
    throw new HttpError(502, 'sandbox_error', `sandboxd refused the exec: ${JSON.stringify(res.body)}`);
  }
  const call: ExecCall = { ...observedCall, deps, execId };
  const wantsStream = (c.req.header('accept') ?? '').includes('text/event-stream');
  return wantsStream
    ? streamed(c, call, res.stream, abort)
    : await collected(c, reply, call, res.stream, abort);
}

/** The JSON answer: the run's output collected, its exit, and whether output was cut. */
async function collected(
  c: Context,
  reply: ExecReply,
  call: ExecCall,
  upstream: Readable,
  abort: AbortController,
): Promise<Observed<Answer<typeof execSandbox> | Response>> {
  // A caller that goes away before the answer cancels the run, as in a stream.
  const gone = () => abort.abort();
  c.req.raw.signal.addEventListener('abort', gone, { once: true });
  try {
    const out = await collectOutput(upstream);
    const exit = out.exit;
    if (!exit) {
      if (c.req.raw.signal.aborted) {
        const end = execEnd(call, {
          invokeId: call.execId,
          exitCode: -1,
          durationMs: call.elapsed(),
          reason: 'canceled',
        });
        // Nobody reads this answer; 499 (nginx's "client closed request") is for the request log.
        return { answer: new Response(null, { status: 499 }), end };
      }
      call.deps.sandboxd.forget(call.sandbox.metadata.namespace ?? '', call.sandbox.metadata.name ?? '');
      const end = execEnd(call, {
        invokeId: call.execId,
        exitCode: -1,
        durationMs: call.elapsed(),
        reason: 'error',
      });
      const error = new HttpError(
        502,
        'sandbox_unreachable',
        'the sandbox stopped answering before the command ended',
      );
      return { error, end };
    }
    const end = execEnd(call, exit, out);
    const result = {
      exitCode: exit.exitCode,
      stdout: out.stdout,
      stderr: out.stderr,
      durationMs: exit.durationMs,
      reason: exit.reason,
      truncated: out.truncated,
    };
    return { answer: reply.json(200, result, { 'x-exec-id': call.execId }), end };
  } finally {
    c.req.raw.signal.removeEventListener('abort', gone);
  }
}

/** The SSE answer: sandboxd's stream passed through byte for byte, as invoke's is. */
function streamed(
  c: Context,
  call: ExecCall,
  upstream: Readable,
  abort: AbortController,
): Observed<Response> {
  c.header('content-type', 'text/event-stream; charset=utf-8');
  c.header('cache-control', 'no-cache');
  c.header('x-accel-buffering', 'no');
  c.header('x-exec-id', call.execId);
  // The call ends when the stream does, after the handler has returned its answer.
  const end = Promise.withResolvers<CallEnd>();
  const answer = stream(c, async (out) => {
    out.onAbort(() => abort.abort());
    let previous: Buffer = Buffer.alloc(0);
    let last: Buffer = Buffer.alloc(0);
    let failure: string | undefined;
    try {
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
        exit = { invokeId: call.execId, exitCode: -1, durationMs: call.elapsed(), reason: 'error' };
        await out.write(
          `event: error\ndata: ${JSON.stringify({ code: 'sandbox_unreachable', message: `the sandbox stopped answering: ${failure ?? 'the stream ended without an exit'}` })}\n\n` +
            `event: exit\ndata: ${JSON.stringify(exit)}\n\n`,
        );
      }
      end.resolve(
        execEnd(
          call,
          exit ?? { invokeId: call.execId, exitCode: -1, durationMs: call.elapsed(), reason: 'canceled' },
        ),
      );
    } finally {
      // A stream that failed before its exit: the span still ends (a settled end stays).
      end.resolve({
        attributes: { duration_ms: call.elapsed(), outcome: 'error' },
        error: 'stream ended early',
      });
      // The stream closes once the call is counted (its audit record is not waited for).
      await call.counted;
    }
  });
  return { answer, end: end.promise };
}

/**
 * The end of an exec, for `observed`: its metrics, its span, its one audit record (not
 * awaited: the answer does not wait for the Event); and activity for `idleTimeout`, since a
 * long exec is use.
 */
function execEnd(
  call: ExecCall,
  exit: ExitEvent,
  out?: { stdoutBytes: number; stderrBytes: number },
): CallEnd {
  const { deps, sandbox, caller } = call;
  const outcome = exitOutcome(exit);
  const { namespace = '', name = '' } = sandbox.metadata;
  recordActivity(deps, deps.cache.get(namespace, name) ?? sandbox);
  return {
    outcome,
    attributes: {
      invoke_id: call.execId,
      exit_code: exit.exitCode,
      duration_ms: exit.durationMs,
      ...(out ? { bytes_stdout: out.stdoutBytes, bytes_stderr: out.stderrBytes } : {}),
      outcome,
    },
    audit: {
      sandbox,
      reason: 'SandboxExec',
      type: outcome === 'completed' || outcome === 'failed' || outcome === 'canceled' ? 'Normal' : 'Warning',
      message: `exec ${call.execId} by ${caller.user}: ${exit.reason}, exit code ${exit.exitCode}, ${exit.durationMs} ms`,
      actor: caller.user,
    },
  };
}
