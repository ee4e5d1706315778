import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { RETRY_AFTER_SECONDS, RunSpec, concurrencyExceeded } from '../core/index.ts';
import { bearerChecker } from './auth.ts';
import { FilesRefused, writeFiles } from './files.ts';
import { PathRefused } from './paths.ts';
import { RunRegistry } from './runs.ts';
import { SseWriter } from './sse.ts';
import { openTunnel, tunnelPort } from './tunnel.ts';

export interface SandboxdOptions {
  token: string;
  /** Root that file writes must stay inside (`/workspace` in a sandbox). */
  workspace: string;
  keepaliveMs?: number;
  graceMs?: number;
  maxConcurrentInvokes?: number;
  /** Environment every run starts from (the container's, without sandboxd's own settings). */
  baseEnv?: Record<string, string>;
}

/**
 * sandboxd's HTTP/1.1 server. Plain node:http on purpose: every invoke goes through here,
 * and the hot path is a handful of branches, not a router.
 */
export function createSandboxd(opts: SandboxdOptions): { server: Server; runs: RunRegistry } {
  const authorized = bearerChecker(opts.token);
  const runs = new RunRegistry({
    graceMs: opts.graceMs ?? 10_000,
    maxConcurrentInvokes: opts.maxConcurrentInvokes ?? 1,
    baseEnv: opts.baseEnv,
  });
  const keepaliveMs = opts.keepaliveMs ?? 15_000;

  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (req.method === 'GET' && url === '/healthz') return json(res, 200, { status: 'ok' });
    if (!authorized(req.headers.authorization))
      return json(res, 401, { error: 'unauthenticated', message: 'a valid bearer token is required' });
    const cancel = /^\/runs\/([^/]+)\/cancel$/.exec(url);
    const events = /^\/runs\/([^/]+)\/events$/.exec(url);
    if (req.method === 'POST' && url === '/runs') return void startRun(req, res);
    if (req.method === 'GET' && events) return attachRun(res, decodePath(events[1]!));
    if (req.method === 'POST' && cancel) {
      return runs.cancel(decodePath(cancel[1]!))
        ? json(res, 202, { status: 'canceling' })
        : json(res, 404, { error: 'not_found', message: 'no such run in flight' });
    }
    if (req.method === 'GET' && url === '/runs')
      return json(res, 200, { items: runs.list(), maxConcurrentInvokes: runs.maxConcurrentInvokes });
    if (req.method === 'PUT' && url === '/files') return void putFiles(req, res);
    if (req.method === 'PUT' && url === '/limits') return void putLimits(req, res);
    json(res, 404, { error: 'not_found', message: `no route ${req.method ?? ''} ${url}` });
  });

  server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => {
    const port = tunnelPort(req);
    if (
      !authorized(req.headers.authorization) ||
      port === undefined ||
      req.headers.upgrade?.toLowerCase() !== 'tcp'
    ) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n');
      return;
    }
    openTunnel(port, socket, head);
  });

  async function startRun(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { line, rest } = await firstLine(req).catch(() => ({ line: undefined, rest: req }));
    const parsed = RunSpec.safeParse(safeJson(line));
    if (!parsed.success)
      return json(res, 400, {
        error: 'bad_request',
        message: `bad run spec: ${parsed.error.issues[0]?.message ?? 'not JSON'}`,
      });
    const spec = parsed.data;
    if (runs.has(spec.runId))
      return json(res, 409, { error: 'conflict', message: `run ${spec.runId} is already in flight` });
    if (spec.kind === 'invoke' && runs.inflight('invoke') >= runs.maxConcurrentInvokes) {
      res.setHeader('retry-after', String(RETRY_AFTER_SECONDS));
      return json(res, 429, concurrencyExceeded(runs.maxConcurrentInvokes, runs.inflight('invoke')));
    }
    const sse = new SseWriter(res, keepaliveMs);
    // A client that goes away cancels its run (SIGTERM, then SIGKILL).
    res.on('close', () => {
      if (!res.writableFinished) runs.cancel(spec.runId);
    });
    await runs.start(spec, rest, sse);
  }

  /** Replays an install run's stream so far, then follows it to its exit. */
  function attachRun(res: ServerResponse, runId: string): void {
    const log = runs.log(runId);
    if (!log)
      return json(res, 404, {
        error: 'not_found',
        message: `no install run ${runId} in flight or recently finished`,
      });
    const sse = new SseWriter(res, keepaliveMs);
    // Frames are bounded, so a slow reader's socket buffers rather than pausing the run.
    const detach = log.attach({ frame: (text) => void sse.frame(text), end: () => sse.end() });
    // Unlike the POST's, this reader going away leaves the run alone.
    res.on('close', detach);
  }

  async function putFiles(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const { written } = await writeFiles(opts.workspace, req);
      json(res, 200, { written: written.length });
    } catch (err) {
      if (err instanceof FilesRefused)
        return json(res, 413, { error: 'files_refused', message: err.message, codes: err.details });
      if (err instanceof PathRefused) return json(res, 400, { error: 'path_refused', message: err.message });
      json(res, 500, { error: 'internal', message: (err as Error).message });
    } finally {
      req.resume();
    }
  }

  async function putLimits(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { line } = await firstLine(req).catch(() => ({ line: undefined }));
    const body = safeJson(line) as { maxConcurrentInvokes?: unknown } | undefined;
    const n = body?.maxConcurrentInvokes;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) {
      return json(res, 400, { error: 'bad_request', message: 'maxConcurrentInvokes must be an integer ≥ 1' });
    }
    runs.maxConcurrentInvokes = n;
    json(res, 200, { maxConcurrentInvokes: n });
  }

  return { server, runs };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Splits a body into its first line and a stream of everything after it (the stdin of a
 * run), without buffering more than the line.
 */
function firstLine(req: Readable): Promise<{ line: string; rest: Readable }> {
  return new Promise((resolve, reject) => {
    let head: Buffer = Buffer.alloc(0);
    const done = (line: string, tail: Buffer | undefined) => {
      req.off('data', onData);
      req.off('end', onEnd);
      const rest = new PassThrough();
      if (tail === undefined) rest.end();
      else {
        rest.write(tail);
        req.pipe(rest);
      }
      resolve({ line, rest });
    };
    const onData = (chunk: Buffer) => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      const nl = head.indexOf(10);
      if (nl >= 0) done(head.subarray(0, nl).toString('utf8'), head.subarray(nl + 1));
      else if (head.length > 1024 * 1024) reject(new Error('first line too long'));
    };
    const onEnd = () => done(head.toString('utf8'), undefined);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

/** A path segment decoded; a malformed escape names no run (and must not throw in the handler). */
function decodePath(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function safeJson(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}
