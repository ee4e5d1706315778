import { randomUUID } from 'node:crypto';
import { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import type { StreamingApi } from 'hono/utils/stream';
import type { z } from 'zod';
import {
  ExitEvent,
  type InvokeQuery,
  LogEvent,
  MAX_INVOKE_BODY_BYTES,
  SseParser,
  durationMs,
  type Sandbox,
} from '../../core/index.ts';
import { answerDetached, detachRequested } from '../runs/index.ts';
import type { invokeSandbox } from './operations.ts';
import type { Caller } from '../auth/index.ts';
import type { AgentDeps } from './deps.ts';
import { HttpError, policyViolation } from '../errors/index.ts';
import type { Answer, Reply } from '../openapi/index.ts';
import { requireAgentMode, requireConfigured, throttled } from './checks.ts';
import {
  exitOutcome,
  observed,
  readBounded,
  requireRunning,
  sandboxdOf,
  type CallEnd,
  type Observed,
  type ObservedCall,
  type OnSandbox,
} from '../request/index.ts';

/** How stale a policy an invoke may be checked against (a write through this API drops it at once). */
const POLICY_MAX_AGE_MS = 1_000;

/**
 * `POST /sandboxes/{id}/invoke`: the body is the entrypoint's stdin; sandboxd's SSE stream
 * (`start`, `log`…, `exit`) is passed through byte for byte, because its events are already
 * the spec's wire form and re-encoding them would cost the CPU the stream needs. One span,
 * `svc.invoke`, a child of the caller's `traceparent`, covers the call.
 */
export function invoke(
  c: Context<OnSandbox>,
  deps: AgentDeps,
  query: z.output<typeof InvokeQuery>,
  reply: Reply<typeof invokeSandbox>,
): Promise<Answer<typeof invokeSandbox> | Response> {
  return observed(c, deps, 'invoke', (call) => invoked(c, deps, query, reply, call));
}

async function invoked(
  c: Context<OnSandbox>,
  deps: AgentDeps,
  query: z.output<typeof InvokeQuery>,
  reply: Reply<typeof invokeSandbox>,
  call: ObservedCall,
): Promise<Observed<Answer<typeof invokeSandbox> | Response>> {
  const detach = detachRequested(c, query.detach);
  const { started, caller, span, sandbox } = call;
  requireAgentMode(sandbox);
  requireRunning(sandbox, 'configure and invoke', 'need');
  const entrypoint = requireConfigured(sandbox);
  // The cap is sandboxd's to enforce, atomically, when the run starts. Its load is asked
  // first when the spec's order needs it (429 before 403: a call governance refuses) and
  // when the body is not known to be small: a sandbox at its cap then costs the caller's
  // up to 16 MiB no read at all. A small body is cheaper to read than a round trip.
  const violations = await deps.governance.checkConfigure(sandbox, POLICY_MAX_AGE_MS);
  if (violations.length > 0 || !smallBody(c)) {
    const { answer: load } = await sandboxdOf(deps, sandbox, (c) => c.load());
    if (load.inflight >= load.maxConcurrentInvokes) throw throttled(load.maxConcurrentInvokes, load.inflight);
    if (violations.length > 0) throw policyViolation(violations);
  }
  const stdin = await readBounded(c, MAX_INVOKE_BODY_BYTES);

  const agent = sandbox.spec.harness?.agent;
  const invokeId = `inv-${randomUUID()}`;
  span.setAttribute('invoke_id', invokeId);
  const abort = new AbortController();
  const { answer: res } = await sandboxdOf(deps, sandbox, (sandboxd) =>
    sandboxd.runRaw(
      {
        runId: invokeId,
        kind: 'invoke',
        argv: entrypoint,
        cwd: agent?.workingDir ?? '/workspace',
        env: Object.fromEntries((agent?.env ?? []).map((e) => [e.name, e.value])),
        timeoutMs: invokeTimeoutMs(agent?.defaultInvokeTimeout, query.timeout),
        ...(detach ? { detach } : {}),
      },
      stdin,
      abort.signal,
    ),
  );
  if (res.status === 429) {
    const body = res.body as { limit?: number; inflight?: number };
    throw throttled(body.limit ?? 1, body.inflight ?? 1);
  }
  if (detach && res.status === 202) {
    const { run, end } = answerDetached({ kind: 'invoke', invokeId, sandbox, caller, started });
    return { answer: reply.json(202, run, { location: run.eventsUrl }), end };
  }
  if (res.status !== 200 || !res.stream) {
    throw new HttpError(502, 'sandbox_error', `sandboxd refused the invoke: ${JSON.stringify(res.body)}`);
  }
  const upstream = res.stream;
  // The invoke's one audit record is written before the first byte is streamed and
  // becomes its outcome at the end, so an invoke cut short by the API's own death still
  // has it (reason AgentInvokeStarted). sandboxd has just accepted the run.
  await call.openAudit({
    sandbox,
    reason: 'AgentInvokeStarted',
    type: 'Normal',
    message: `invoke ${invokeId} by ${caller.user} started`,
    actor: caller.user,
  });

  // The call ends when the relay does, after the handler has returned its answer.
  const end = Promise.withResolvers<CallEnd>();
  const relay = async (out: Sink): Promise<void> => {
    // A caller that goes away cancels the run: dropping sandboxd's connection makes it
    // send SIGTERM, then SIGKILL after the grace period.
    out.onAbort(() => abort.abort());
    // Counting output means parsing it: only for a span that records.
    const output = span.isRecording() ? new OutputBytes() : undefined;
    // The last two chunks: an `exit` event is small and at most split across them.
    let previous: Buffer = Buffer.alloc(0);
    let last: Buffer = Buffer.alloc(0);
    let failure: string | undefined;
    try {
      try {
        await out.relay(upstream, (chunk) => {
          previous = last;
          last = chunk;
          output?.push(chunk);
        });
      } catch (err) {
        failure = (err as Error).message;
      }
      let exit = lastExit(Buffer.concat([previous, last]).toString('utf8'));
      if (!exit && !out.aborted) {
        // sandboxd went away mid-stream: say so, then close the run the way the spec shapes it.
        deps.sandboxd.forget(sandbox.metadata.namespace ?? '', sandbox.metadata.name ?? '');
        exit = {
          invokeId,
          exitCode: -1,
          durationMs: Math.round(performance.now() - started),
          reason: 'error',
        };
        await out.write(
          `event: error\ndata: ${JSON.stringify({ code: 'sandbox_unreachable', message: `the sandbox stopped answering: ${failure ?? 'the stream ended without an exit'}` })}\n\n` +
            `event: exit\ndata: ${JSON.stringify(exit)}\n\n`,
        );
      }
      exit ??= {
        invokeId,
        exitCode: -1,
        durationMs: Math.round(performance.now() - started),
        reason: 'canceled',
      };
      end.resolve(invokeEnd(sandbox, caller, exit, output));
    } finally {
      // A relay that failed before its exit: the span still ends (a settled end stays).
      end.resolve({
        attributes: { duration_ms: call.elapsed(), outcome: 'error' },
        error: 'stream ended early',
      });
      // The stream closes once the call is counted (its audit record is not waited for).
      await call.counted;
    }
  };

  const head = {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  };
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing instanceof ServerResponse) {
    // Served by Node: sandboxd's response is piped into Node's. Hono's stream passes each
    // chunk through two web streams and Node's adapter, a third more CPU for the relay
    // (see bench/README.md, bench-invoke).
    const requestId = c.get('requestId');
    outgoing.writeHead(200, requestId ? { ...head, 'x-request-id': requestId } : head);
    const out = nodeSink(outgoing);
    void relay(out)
      .catch((err: unknown) => c.var.log.error({ err }, 'invoke relay failed'))
      .finally(() => outgoing.end());
    return { answer: RESPONSE_ALREADY_SENT, end: end.promise };
  }
  for (const [name, value] of Object.entries(head)) c.header(name, value);
  return { answer: stream(c, (out) => relay(honoSink(out))), end: end.promise };
}

/** A body read without asking sandboxd's load first: declared, and no larger than this. */
const SMALL_BODY_BYTES = 64 * 1024;

const smallBody = (c: Context) => {
  const declared = c.req.header('content-length');
  return (
    declared !== undefined &&
    c.req.header('transfer-encoding') === undefined &&
    Number(declared) <= SMALL_BODY_BYTES
  );
};

/**
 * The wall-clock cap of one invoke: `?timeout=` when given, never above the agent's
 * `defaultInvokeTimeout` when that is set (a `0` on either side means none).
 */
export function invokeTimeoutMs(defaultTimeout: string | undefined, requested: string | undefined): number {
  const cap = defaultTimeout ? durationMs(defaultTimeout) : 0;
  const asked = requested ? durationMs(requested) : 0;
  if (cap === 0) return asked;
  return asked === 0 ? cap : Math.min(asked, cap);
}

/** Where the relay sends sandboxd's stream: Hono's stream, or Node's response (`nodeSink`). */
interface Sink {
  /**
   * Passes `upstream` through to the caller, handing each chunk to `seen` too; resolves
   * when it has ended or the caller has gone, rejects when it fails.
   */
  relay(upstream: Readable, seen: (chunk: Buffer) => void): Promise<void>;
  write(text: string): Promise<unknown>;
  readonly aborted: boolean;
  onAbort(listener: () => void): void;
}

function honoSink(out: StreamingApi): Sink {
  return {
    async relay(upstream, seen) {
      for await (const chunk of upstream as AsyncIterable<Buffer>) {
        seen(chunk);
        await out.write(chunk);
        if (out.aborted) break;
      }
    },
    write: (text) => out.write(text),
    get aborted() {
      return out.aborted;
    },
    onAbort: (listener) => out.onAbort(listener),
  };
}

/**
 * Node's response as a `Sink`: sandboxd's response is piped into it (Node's own
 * backpressure, no promise per chunk); the response closing before it ended is the caller
 * going away.
 */
function nodeSink(res: ServerResponse): Sink {
  let aborted = false;
  const listeners: (() => void)[] = [];
  res.once('close', () => {
    if (res.writableFinished) return;
    aborted = true;
    for (const listener of listeners) listener();
  });
  return {
    relay: (upstream, seen) =>
      new Promise<void>((resolve, reject) => {
        if (aborted) return resolve();
        const done = (err?: Error) => {
          upstream.off('data', seen).off('end', ended).off('error', done).off('close', closed);
          res.off('close', gone);
          upstream.unpipe(res);
          if (err) reject(err);
          else resolve();
        };
        const ended = () => done();
        const closed = () => done(upstream.readableEnded ? undefined : new Error('aborted'));
        const gone = () => done();
        upstream.on('data', seen).once('end', ended).once('error', done).once('close', closed);
        res.once('close', gone);
        upstream.pipe(res, { end: false });
      }),
    write: (text) =>
      new Promise<void>((resolve) => {
        if (aborted) resolve();
        else res.write(text, () => resolve());
      }),
    get aborted() {
      return aborted;
    },
    onAbort: (listener) => listeners.push(listener),
  };
}

/** The end of a finished invoke: its span, metric and audit record. Never argv or stdin. */
function invokeEnd(
  sandbox: Sandbox,
  caller: Caller,
  exit: ExitEvent,
  output: OutputBytes | undefined,
): CallEnd {
  const outcome = exitOutcome(exit);
  const reason =
    outcome === 'completed'
      ? 'AgentInvokeCompleted'
      : outcome === 'canceled'
        ? 'AgentInvokeCanceled'
        : 'AgentInvokeFailed';
  return {
    outcome,
    attributes: {
      invoke_id: exit.invokeId,
      exit_code: exit.exitCode,
      duration_ms: exit.durationMs,
      bytes_stdout: output?.stdout ?? 0,
      bytes_stderr: output?.stderr ?? 0,
      outcome,
    },
    audit: {
      sandbox,
      reason,
      type: outcome === 'completed' || outcome === 'canceled' ? 'Normal' : 'Warning',
      message: `invoke ${exit.invokeId} by ${caller.user}: ${exit.reason}, exit code ${exit.exitCode}, ${exit.durationMs} ms`,
      actor: caller.user,
    },
  };
}

/** Bytes of output per stream, from the `log` events of the stream passed through. */
class OutputBytes {
  readonly #decoder = new TextDecoder();
  readonly #parser = new SseParser();
  stdout = 0;
  stderr = 0;

  #over = false;

  push(chunk: Buffer): void {
    if (this.#over) return;
    let messages;
    try {
      messages = this.#parser.push(this.#decoder.decode(chunk, { stream: true }));
    } catch {
      // An event past the parser's bound: the span's counts stop here; the stream, passed
      // through byte for byte, is the caller's to read (its own parser bounds it).
      this.#over = true;
      return;
    }
    for (const m of messages) {
      if (m.event !== 'log') continue;
      const log = LogEvent.safeParse(safeJson(m.data));
      if (log.success) this[log.data.stream] += Buffer.byteLength(log.data.data);
    }
  }
}

/** The last `exit` event in a stream's tail, if the tail holds one. */
function lastExit(tail: string): ExitEvent | undefined {
  const at = tail.lastIndexOf('event: exit\ndata: ');
  if (at < 0) return undefined;
  const line = tail.slice(at + 'event: exit\ndata: '.length).split('\n', 1)[0] ?? '';
  const parsed = ExitEvent.safeParse(safeJson(line));
  return parsed.success ? parsed.data : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
