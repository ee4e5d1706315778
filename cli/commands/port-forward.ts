// port-forward: a listener on 127.0.0.1 whose requests go to a sandbox's port through the
// API's preview path, signed with the context's key. Plain HTTP is proxied request by
// request; an HTTP Upgrade (WebSocket) becomes a byte tunnel once the sandbox answers 101.
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { CliError, ExitCode } from '../errors.ts';
import type { Invocation } from '../main.ts';
import { openSession } from '../session.ts';

/** Headers that describe one hop, or carry a credential the API must not mistake for ours. */
const DROPPED = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'authorization',
  'x-api-key',
]);

function portOf(value: string, what: string, min = 1): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > 65535)
    throw new CliError(`${what} must be a port number, not "${value}"`, ExitCode.usage);
  return n;
}

function forwardHeaders(
  from: IncomingHttpHeaders,
  credential: Readonly<Record<string, string>>,
  upgrade: boolean,
) {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(from)) {
    if (v === undefined || DROPPED.has(k)) continue;
    if (!upgrade && k === 'upgrade') continue;
    out[k] = v;
  }
  if (upgrade) out.connection = 'Upgrade';
  return { ...out, ...credential };
}

function head(
  status: number,
  message: string,
  headers: IncomingHttpHeaders | NodeJS.Dict<string | string[]>,
): string {
  let text = `HTTP/1.1 ${status} ${message}\r\n`;
  for (const [k, v] of Object.entries(headers)) {
    for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) text += `${k}: ${one}\r\n`;
  }
  return `${text}\r\n`;
}

export async function portForward(inv: Invocation<{ local?: string }>): Promise<number> {
  const name = inv.args[0]!;
  const port = portOf(inv.args[1]!, 'PORT');
  const local = inv.opts.local === undefined ? port : portOf(inv.opts.local, '--local', 0);
  const { client } = await openSession(inv.globals);
  await client.forwardPort(name, { port, protocol: 'http' });
  const { headers: credential } = client.connection;
  const target = (path: string) => new URL(client.previewUrl(name, port, path));
  const send = (url: URL) => (url.protocol === 'https:' ? httpsRequest : httpRequest);

  const server = createServer((req, res) => {
    const url = target(req.url ?? '/');
    const upstream = send(url)(
      url,
      { method: req.method, headers: forwardHeaders(req.headers, credential, false) },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`sbx port-forward: ${err.message}\n`);
    });
    req.pipe(upstream);
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, first: Buffer) => {
    const url = target(req.url ?? '/');
    const upstream = send(url)(url, {
      method: req.method,
      headers: forwardHeaders(req.headers, credential, true),
    });
    upstream.on('upgrade', (answer: IncomingMessage, tunnel: Socket, rest: Buffer) => {
      socket.write(head(101, answer.statusMessage ?? 'Switching Protocols', answer.headers));
      if (rest.length > 0) socket.write(rest);
      if (first.length > 0) tunnel.write(first);
      tunnel.pipe(socket).pipe(tunnel);
      const close = () => {
        tunnel.destroy();
        socket.destroy();
      };
      tunnel.on('error', close).on('close', close);
      socket.on('error', close).on('close', close);
    });
    // Refused (401, 404, 409, the app's own 400…): the answer goes back as it is.
    upstream.on('response', (answer) => {
      socket.write(
        head(answer.statusCode ?? 502, answer.statusMessage ?? '', {
          ...answer.headers,
          connection: 'close',
        }),
      );
      answer.pipe(socket);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
    upstream.end();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new CliError(`127.0.0.1:${local} is in use; choose another with --local (0 picks a free one)`)
          : err,
      ),
    );
    server.listen(local, '127.0.0.1', resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  process.stdout.write(`Forwarding from http://127.0.0.1:${bound} -> ${name}:${port}\n`);
  process.stderr.write('(Ctrl-C to stop)\n');
  await new Promise<void>((resolve) => {
    const stop = () => {
      server.closeAllConnections();
      server.close(() => resolve());
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return ExitCode.ok;
}
