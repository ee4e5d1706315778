import { ServerResponse, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Hono, type Context } from 'hono';
import { FileOperation, type Sandbox } from '../../core/index.ts';
import type { ReadAnswer, SandboxdClient } from '../../kube/index.ts';
import type { FilesDeps } from './deps.ts';
import { HttpError, badRequest } from '../errors/index.ts';
import { parsed, route } from '../openapi/index.ts';
import {
  deleteFile,
  downloadArchive,
  fileOperation,
  fileOperations,
  listFiles,
  readFile,
  uploadArchive,
  writeFile,
} from './operations.ts';
import {
  readBounded,
  sandboxdOf,
  unreachable,
  onOwnedSandbox,
  requireRunning,
  type OnSandbox,
} from '../request/index.ts';

/** The one folder the file API serves; sandboxd checks again, links followed. */
export const WORKSPACE = '/workspace';

/** Request headers a read passes to sandboxd (ranges and conditional requests). */
const READ_HEADERS = ['range', 'if-range', 'if-none-match', 'if-modified-since'];
/** Answer headers passed back. */
const ANSWER_HEADERS = [
  'content-type',
  'content-length',
  'content-range',
  'accept-ranges',
  'etag',
  'last-modified',
  'content-disposition',
];

/**
 * Files and archives of a sandbox's workspace. The API checks the caller, the sandbox and the
 * path (lexically); sandboxd does the work and checks the path again with links followed.
 * Bodies stream through in both directions, never held: a 1 GiB file costs a few buffers.
 */
export function fileRoutes(deps: FilesDeps): Hono<OnSandbox> {
  const app = new Hono<OnSandbox>();
  onOwnedSandbox(app, deps, fileOperations);

  route(app, listFiles, async (c, { query }) => {
    const path = workspacePath(query.path, 'path');
    return pass(c, await call(deps, c.var.sandbox, 'GET', fsPath(path)));
  });

  route(app, readFile, (c) => {
    const path = pathOf(c);
    const headers: Record<string, string> = {};
    for (const h of READ_HEADERS) {
      const v = c.req.header(h);
      if (v !== undefined) headers[h] = v;
    }
    return download(c, deps, c.var.sandbox, fsPath(path), headers);
  });

  route(app, writeFile, async (c, { query }) => {
    const path = pathOf(c);
    const { mode } = query;
    return pass(
      c,
      await call(deps, c.var.sandbox, 'PUT', fsPath(path, mode ? { mode } : {}), {
        headers: lengthOf(c),
        body: bodyOf(c),
      }),
    );
  });

  route(app, deleteFile, async (c, { query }) => {
    const path = pathOf(c);
    const { recursive } = query;
    return pass(c, await call(deps, c.var.sandbox, 'DELETE', fsPath(path, recursive ? { recursive } : {})));
  });

  route(app, fileOperation, async (c) => {
    const path = pathOf(c);
    const op = parsed(FileOperation, jsonOf(await readBounded(c, MAX_OPERATION_BYTES)));
    if (op.op === 'move') workspacePath(op.to, 'to');
    const body = Readable.from([JSON.stringify(op)]);
    return pass(c, await call(deps, c.var.sandbox, 'POST', fsPath(path), { body }));
  });

  route(app, downloadArchive, (c, { query }) => {
    const path = workspacePath(query.path, 'path');
    const search = new URLSearchParams({ path, format: query.format ?? 'zip' });
    return download(c, deps, c.var.sandbox, `/archive?${search.toString()}`, {});
  });

  route(app, uploadArchive, async (c, { query }) => {
    const path = workspacePath(query.path, 'path');
    const search = new URLSearchParams({ path });
    return pass(
      c,
      await call(deps, c.var.sandbox, 'PUT', `/archive?${search.toString()}`, {
        headers: lengthOf(c),
        body: bodyOf(c),
      }),
    );
  });

  return app;
}

/** A move or mkdir is a few hundred bytes; its body is exempt from the JSON limit with uploads. */
const MAX_OPERATION_BYTES = 64 * 1024;

function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString()) as unknown;
  } catch {
    throw badRequest('request body is not valid JSON');
  }
}

const outside = (path: string, why: string) =>
  new HttpError(400, 'path_outside_workspace', `${path}: ${why}; only paths inside ${WORKSPACE} are served`);

/**
 * `path` if it is absolute, free of `..` and inside the workspace (the folder itself
 * included), else the 400 the spec names. Links are sandboxd's to follow.
 */
export function workspacePath(path: string, field: string): string {
  if (path === '') throw new HttpError(400, 'invalid_request', `invalid request: ${field}: is required`);
  if (path.includes('\0')) throw outside(path, 'a NUL is not allowed');
  if (!path.startsWith('/')) throw outside(path, 'must be an absolute path');
  const segments = path.split('/');
  if (segments.includes('..')) throw outside(path, '.. is not allowed');
  const clean = `/${segments.filter((s) => s !== '' && s !== '.').join('/')}`;
  if (clean !== WORKSPACE && !clean.startsWith(`${WORKSPACE}/`))
    throw outside(path, 'not inside the workspace');
  return clean;
}

/**
 * The sandbox path a `/files/{path}` URL names: what follows `/files/`, each segment decoded
 * (the URL's path is the absolute path without its leading slash).
 */
function pathOf(c: Context): string {
  const { pathname } = new URL(c.req.url);
  const match = /\/sandboxes\/[^/]+\/files\/(.*)$/.exec(pathname);
  const rest = match?.[1] ?? '';
  if (rest === '') throw new HttpError(400, 'invalid_request', 'invalid request: path: is required');
  let decoded: string;
  try {
    decoded = rest
      .split('/')
      .map((s) => decodeURIComponent(s))
      .join('/');
  } catch {
    throw new HttpError(400, 'invalid_request', 'invalid request: path: malformed percent-encoding');
  }
  return workspacePath(`/${decoded}`, 'path');
}

function fsPath(path: string, extra: Record<string, string> = {}): string {
  return `/fs?${new URLSearchParams({ path, ...extra }).toString()}`;
}

/** The caller's Content-Length, passed on, so sandboxd reads a sized body rather than chunks. */
function lengthOf(c: Context): Record<string, string> {
  const length = c.req.header('content-length');
  return length !== undefined && /^\d+$/.test(length) ? { 'content-length': length } : {};
}

/**
 * The request body as a Node stream, read as sandboxd takes it (back-pressure end to end).
 * Served by Node, that is the IncomingMessage itself when nothing has read it yet: piping it
 * straight on keeps a 1 GiB upload to a few socket buffers, where the web-stream adapters
 * in between would each queue chunks of their own.
 */
function bodyOf(c: Context): Readable {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && incoming.readableFlowing === null && !incoming.readableDidRead) return incoming;
  const body = c.req.raw.body;
  return body ? Readable.fromWeb(body as WebReadableStream<Uint8Array>) : Readable.from([]);
}

async function call(
  deps: FilesDeps,
  sandbox: Sandbox,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: Readable; signal?: AbortSignal } = {},
): Promise<IncomingMessage> {
  // Its files are there, but nothing serves them.
  requireRunning(sandbox, 'files and archives', 'need');
  // Only the address is looked up here: a streamed body cannot be sent twice, so there is
  // no second attempt once it has started.
  const { client } = await sandboxdOf(deps, sandbox, (c: SandboxdClient) => Promise.resolve(c));
  try {
    return await client.stream(method, path, opts);
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    const { namespace = '', name = '' } = sandbox.metadata;
    deps.sandboxd.forget(namespace, name);
    throw unreachable((err as Error).message);
  }
}

/**
 * sandboxd's answer as the caller's: its status, the headers that describe the body, and
 * the body streamed (back-pressure end to end). A fault inside sandboxd (a 5xx other than
 * 507) is a 502, never a 500.
 */
async function pass(c: Context, res: IncomingMessage): Promise<Response> {
  const status = res.statusCode ?? 502;
  if (status >= 500 && status !== 507) {
    const text = await textOf(res);
    throw new HttpError(502, 'sandbox_error', `sandboxd failed: ${text.slice(0, 1000)}`);
  }
  const headers = new Headers();
  for (const h of ANSWER_HEADERS) {
    const v = res.headers[h];
    if (typeof v === 'string') headers.set(h, v);
  }
  if (status === 204 || status === 304) {
    res.resume();
    return new Response(null, { status, headers });
  }
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing instanceof ServerResponse) {
    // Served by Node: sandboxd's answer is piped into Node's response. Through a web stream
    // and Node's adapter a download ran at a third of the upload's rate (bench-files).
    const requestId = c.get('requestId');
    outgoing.writeHead(status, {
      ...Object.fromEntries(headers),
      ...(requestId ? { 'x-request-id': requestId } : {}),
    });
    // Either side going away ends both; there is no one left to answer.
    pipeline(res, outgoing).catch(() => undefined);
    return RESPONSE_ALREADY_SENT;
  }
  return new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { status, headers });
}

/**
 * A GET relayed to the caller. Served by Node, sandboxd's answer is read off its socket into
 * a few reused buffers and written straight into Node's response (`SandboxdClient.read`):
 * through `node:http` each 64 KiB of a download was a new buffer, so a 1 GiB download left a
 * gigabyte of garbage behind (the API's memory rose by up to 76 MiB before V8 collected it)
 * and the relay's CPU went to copies and collections (bench-files).
 */
async function download(
  c: Context,
  deps: FilesDeps,
  sandbox: Sandbox,
  path: string,
  headers: Record<string, string>,
): Promise<Response> {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  const signal = c.req.raw.signal;
  if (!(outgoing instanceof ServerResponse) || c.req.method !== 'GET')
    return pass(c, await call(deps, sandbox, 'GET', path, { headers, signal }));
  requireRunning(sandbox, 'files and archives', 'need');
  const { client } = await sandboxdOf(deps, sandbox, (s: SandboxdClient) => Promise.resolve(s));
  let answer: ReadAnswer;
  try {
    answer = await client.read(path, { headers, signal });
  } catch (err) {
    if (signal.aborted) throw err;
    const { namespace = '', name = '' } = sandbox.metadata;
    deps.sandboxd.forget(namespace, name);
    throw unreachable((err as Error).message);
  }
  const status = answer.status;
  if (status >= 500 && status !== 507) {
    const text = await answer.text();
    throw new HttpError(502, 'sandbox_error', `sandboxd failed: ${text.slice(0, 1000)}`);
  }
  const passed: Record<string, string> = {};
  for (const h of ANSWER_HEADERS) if (answer.headers[h] !== undefined) passed[h] = answer.headers[h];
  if (status === 204 || status === 304) {
    answer.discard();
    return new Response(null, { status, headers: passed });
  }
  const requestId = c.get('requestId');
  outgoing.writeHead(status, { ...passed, ...(requestId ? { 'x-request-id': requestId } : {}) });
  // Either side going away ends both; there is no one left to answer.
  answer.pipeTo(outgoing).catch(() => undefined);
  return RESPONSE_ALREADY_SENT;
}

async function textOf(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}
