import { connect, type Socket } from 'node:net';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

/** The size of each reused read buffer, and how many a read may have in flight at once. */
const BUFFER_BYTES = 256 * 1024;
const BUFFERS = 4;
/** A status line and headers longer than this are not sandboxd's. */
const MAX_HEAD_BYTES = 64 * 1024;

/** Where sandboxd listens, as `node:net` takes it. */
export type SandboxdTarget = { socketPath: string } | { host: string; port: number };

/** sandboxd's answer to a read, its head parsed, its body not yet read. */
export interface ReadAnswer {
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  /**
   * Relays the body into `out` and ends it; back-pressure reaches sandboxd (at most four
   * buffers in flight). Rejects, with `out` destroyed, when the body is cut short or either
   * side goes away.
   */
  pipeTo(out: Writable): Promise<void>;
  /** The body as text (an error's JSON), read whole. */
  text(): Promise<string>;
  /** Drops the connection; the body is not read. */
  discard(): void;
}

/**
 * A GET to sandboxd read straight off the socket into a few reused buffers, for the API's
 * downloads. Through `node:http` every 64 KiB of a body is a new buffer (and a copy): a
 * 1 GiB download left a gigabyte of garbage that only V8's external-memory limit collected,
 * so the API's resident memory rose by 60–100 MiB per transfer and its CPU went mostly to
 * the copies and the collections. Here a body's bytes land in one of four 256 KiB buffers,
 * each used again once the caller's socket has taken it.
 *
 * The request is HTTP/1.0, so sandboxd (Go's net/http) never chunks the answer: the body is
 * what follows the head until Content-Length bytes have come, or until sandboxd closes the
 * connection when it sent none (a multi-range answer, a zip being written).
 */
export function readRaw(
  target: SandboxdTarget,
  path: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<ReadAnswer> {
  return Promise.resolve().then(() => open(target, requestHead(path, headers), signal));
}

function open(target: SandboxdTarget, requestText: string, signal?: AbortSignal): Promise<ReadAnswer> {
  return new Promise((resolve, reject) => {
    const free: Buffer[] = [];
    let head: Buffer | undefined = Buffer.alloc(0);
    let onBody: ((chunk: Buffer, pooled: Buffer) => void) | undefined;
    let pending: Buffer[] = [];
    let done: ((err?: Error) => void) | undefined;
    let settled = false;
    const fail = (err: Error) => {
      if (!settled) {
        settled = true;
        reject(err);
      }
      done?.(err);
    };
    const take = () => free.pop() ?? Buffer.allocUnsafe(BUFFER_BYTES);
    const socket: Socket = connect({
      ...('socketPath' in target ? { path: target.socketPath } : target),
      onread: {
        buffer: take,
        callback: (n, array) => {
          const buf = array as Buffer; // one of `take`'s
          const bytes = buf.subarray(0, n);
          if (head === undefined) {
            onBody?.(bytes, buf);
            return true;
          }
          head = Buffer.concat([head, bytes]);
          free.push(buf);
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) {
            if (head.length > MAX_HEAD_BYTES) fail(new Error('sandboxd sent no end of its headers'));
            return true;
          }
          const parsed = parseHead(head.subarray(0, end).toString('latin1'));
          // What came after the head is the body's start, copied (it is small, once).
          const rest = Buffer.from(head.subarray(end + 4));
          head = undefined;
          if (!parsed) {
            fail(new Error('sandboxd sent a malformed answer'));
            return true;
          }
          if (rest.length > 0) pending.push(rest);
          settled = true;
          resolve(answer(parsed.status, parsed.headers));
          return true;
        },
      },
    });
    const abort = () => socket.destroy(new Error('the read was cancelled'));
    if (signal?.aborted) abort();
    signal?.addEventListener('abort', abort, { once: true });
    socket.once('close', () => {
      signal?.removeEventListener('abort', abort);
      if (head !== undefined) fail(new Error('sandboxd closed the connection before answering'));
    });
    socket.on('error', fail);
    socket.on('end', () => done?.());
    socket.on('close', () => done?.());
    socket.write(requestText);

    function answer(status: number, answerHeaders: Record<string, string>): ReadAnswer {
      const declared = answerHeaders['content-length'];
      const expected = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : undefined;
      let received = 0;
      // Until someone reads the body, the socket waits.
      socket.pause();
      const run = (sink: (chunk: Buffer, pooled: Buffer | undefined) => void) =>
        new Promise<void>((resolveRun, rejectRun) => {
          done = (err) => {
            done = undefined;
            socket.destroy();
            if (err) return rejectRun(err);
            if (expected !== undefined && received < expected)
              return rejectRun(new Error(`sandboxd sent ${received} of ${expected} bytes`));
            resolveRun();
          };
          const accept = (chunk: Buffer, pooled: Buffer | undefined) => {
            received += chunk.length;
            sink(chunk, pooled);
            if (expected !== undefined && received >= expected) done?.();
          };
          for (const chunk of pending) accept(chunk, undefined);
          pending = [];
          if (!done) return;
          onBody = accept;
          socket.resume();
        });
      return {
        status,
        headers: answerHeaders,
        pipeTo: async (out) => {
          const gone = () => done?.(new Error('the caller went away'));
          out.once('close', gone);
          out.once('error', gone);
          let inFlight = 0;
          try {
            await run((chunk, pooled) => {
              inFlight++;
              out.write(chunk, () => {
                inFlight--;
                if (pooled) free.push(pooled);
                // The socket reads again once a buffer is back.
                if (socket.isPaused() && inFlight < BUFFERS) socket.resume();
              });
              if (inFlight >= BUFFERS) socket.pause();
            });
            out.end();
            await finished(out);
          } catch (err) {
            out.destroy();
            throw err;
          } finally {
            out.off('close', gone);
            out.off('error', gone);
          }
        },
        text: async () => {
          const chunks: Buffer[] = [];
          await run((chunk) => chunks.push(Buffer.from(chunk)));
          return Buffer.concat(chunks).toString();
        },
        discard: () => socket.destroy(),
      };
    }
  });
}

/** The request's head; a path or header that could split it is refused, never sent. */
function requestHead(path: string, headers: Record<string, string>): string {
  const unsafe = /[^\x21-\x7e]/;
  if (!path.startsWith('/') || unsafe.test(path))
    throw new Error(`not a path to send: ${JSON.stringify(path)}`);
  let head = `GET ${path} HTTP/1.0\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    if (unsafe.test(name) || /[^\t\x20-\x7e]/.test(value))
      throw new Error(`not a header to send: ${JSON.stringify(name)}`);
    head += `${name}: ${value}\r\n`;
  }
  return `${head}\r\n`;
}

function parseHead(text: string): { status: number; headers: Record<string, string> } | undefined {
  const [statusLine, ...lines] = text.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '');
  if (!m) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i <= 0) return undefined;
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: Number(m[1]), headers };
}
