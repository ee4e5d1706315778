import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { serve } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Hono } from 'hono';
import { CONFIGURE_LIMITS } from '../core/index.ts';
import type { ApiDeps } from './deps.ts';
import { previewUpgrade } from './preview/index.ts';
import { TERMINAL_PATH, terminalUpgrade } from './terminal/index.ts';

/**
 * Against slow clients. Headers must arrive within `headersTimeoutMs`; a whole request
 * (headers and body) within `requestTimeoutMs`, long enough for the largest configure
 * (about 257 MiB of JSON) at 300 KB/s. Responses are not bounded: an SSE stream lasts as
 * long as its invoke, since its request was complete when it began.
 */
export interface ServeTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}
export const DEFAULT_TIMEOUTS: ServeTimeouts = { headersTimeoutMs: 30_000, requestTimeoutMs: 15 * 60_000 };

/**
 * What a refused request may still send, which we read and discard so the refusal reaches
 * the caller: at least the largest body any endpoint accepts (a configure's JSON, its
 * files escaped). Past it the answer goes out with `Connection: close`.
 */
export const MAX_DRAIN_BYTES = 2 * CONFIGURE_LIMITS.maxRequestBytes + 2 * 1024 * 1024;

export interface ServedApi {
  /** `http://host:port` the server listens on. */
  url: string;
  /**
   * Stops accepting connections, lets requests in flight finish for up to `drainMs` (0: none),
   * then closes what is left. A stream cut at the deadline ends its invoke as a client
   * disconnect would (sandboxd cancels it).
   */
  close(opts?: { drainMs?: number }): Promise<void>;
}

/**
 * Serves the app over HTTP/1.1, with WebSocket upgrades on the preview path passed through
 * and the terminal's WebSocket served.
 */
export async function serveApi(
  app: Hono,
  deps: ApiDeps,
  listen: { host: string; port: number },
  timeouts: ServeTimeouts = DEFAULT_TIMEOUTS,
): Promise<ServedApi> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve(
      {
        // HTTP/1.1 only: the incoming request is always an IncomingMessage.
        fetch: (req, env) => answerAfterBody(app, req, env as { incoming: IncomingMessage }),
        hostname: listen.host,
        port: listen.port,
        serverOptions: {
          headersTimeout: timeouts.headersTimeoutMs,
          requestTimeout: timeouts.requestTimeoutMs,
          // How often Node looks for expired requests: a fraction of the header timeout.
          connectionsCheckingInterval: Math.min(5_000, Math.max(100, timeouts.headersTimeoutMs / 4)),
        },
      },
      () => resolve(s),
    );
  });
  const preview = previewUpgrade(deps);
  const terminal = terminalUpgrade(deps);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    (TERMINAL_PATH.test(new URL(req.url ?? '/', 'http://api.local').pathname) ? terminal.onUpgrade : preview)(
      req,
      socket,
      head,
    ),
  );
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => refuseMalformed(err, socket));
  // Requests in flight, so a shutdown can wait for them (streams included) and no longer.
  let inFlight = 0;
  let drained: (() => void) | undefined;
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    res.once('close', () => {
      if (--inFlight === 0) drained?.();
    });
  });
  const http = server as unknown as { closeAllConnections(): void; closeIdleConnections(): void };
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${listen.host}:${port}`,
    async close(opts = {}) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      http.closeIdleConnections();
      const drainMs = opts.drainMs ?? 0;
      if (inFlight > 0 && drainMs > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, drainMs);
          drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      terminal.closeAll();
      http.closeAllConnections();
      await closed;
    },
  };
}

/** The header of @hono/node-server's RESPONSE_ALREADY_SENT. */
const X_ALREADY_SENT = 'x-hono-already-sent';

/**
 * Runs the app; when it refuses a request (4xx/5xx) before the body has all arrived, reads
 * the rest and discards it before answering. Closing a connection with unread bytes in it
 * makes the kernel reset it, and a client still sending then sees ECONNRESET instead of
 * the refusal (more often under load, when it is further behind). Past `MAX_DRAIN_BYTES`
 * the answer carries `Connection: close` instead.
 */
async function answerAfterBody(
  app: Hono,
  req: Request,
  env: { incoming: IncomingMessage },
): Promise<Response> {
  const res = await app.fetch(req, env);
  // A handler that wrote Node's response itself says so with RESPONSE_ALREADY_SENT. A
  // middleware setting a header after it copies that into a response @hono/node-server
  // would write a second time (cutting the stream): hand back the marker as it was.
  if (res.headers.has(X_ALREADY_SENT)) return RESPONSE_ALREADY_SENT;
  const { incoming } = env;
  if (res.status < 400 || incoming.readableEnded || incoming.destroyed) return res;
  if (await discardBody(incoming, MAX_DRAIN_BYTES)) return res;
  const headers = new Headers(res.headers);
  headers.set('connection', 'close');
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

/** Reads the rest of a request body and drops it; false when it is larger than `max`. */
function discardBody(incoming: IncomingMessage, max: number): Promise<boolean> {
  const declared = Number(incoming.headers['content-length'] ?? NaN);
  if (declared > max) return Promise.resolve(false);
  return new Promise((resolve) => {
    let read = 0;
    const done = (ok: boolean) => {
      incoming.off('data', onData).off('end', onEnd).off('close', onClose).off('error', onClose);
      if (!ok) incoming.pause();
      resolve(ok);
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > max) done(false);
    };
    const onEnd = () => done(true);
    const onClose = () => done(incoming.readableEnded);
    // A handler that stopped reading part way left the body's web-stream adapter attached;
    // it would queue every chunk we let through. The request is answered: nobody reads on.
    incoming.removeAllListeners('data');
    incoming.on('data', onData).once('end', onEnd).once('close', onClose).once('error', onClose);
    incoming.resume();
  });
}

/**
 * A request Node refuses before any route sees it answers in the API's JSON error shape,
 * like every other refusal, instead of Node's bare status line: 431 for a request line and
 * headers over Node's limit (16 KiB, a long `?path=` for instance), 408 for one not
 * complete within the timeouts, 400 for anything else that is not HTTP/1.1. Registering this
 * listener replaces Node's own answer, so it keeps Node's rule: nothing is written once a
 * response has begun on the connection.
 */
function refuseMalformed(err: NodeJS.ErrnoException, socket: Duplex): void {
  // Node's own handler reads the same field: the response in progress on this connection.
  const current = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || current?.headersSent || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [
          '431 Request Header Fields Too Large',
          'header_fields_too_large',
          'the request line and headers exceed 16 KiB',
        ]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['408 Request Timeout', 'request_timeout', 'the request was not complete in time']
        : ['400 Bad Request', 'bad_request', 'the request is not valid HTTP/1.1'];
  const body = JSON.stringify({ error: code, message });
  socket.end(
    `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
