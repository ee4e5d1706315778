import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { decide, type Ask, type Asker, type Decision } from './decide.ts';
import { readHello, type Hello } from './hello.ts';

/** One decision and what came of it: what the audit trail and the metrics are made of. */
export interface Outcome {
  asker: Asker | undefined;
  source: string;
  host: string;
  port: number;
  allowed: boolean;
  /** Why it was refused; absent when allowed. */
  reason?: string;
  /** Bytes from the sandbox to the host, and back. */
  bytesOut: number;
  bytesIn: number;
  durationMs: number;
}

export interface GatewayOptions {
  listen: { host: string; port: number };
  logger: Logger;
  /** The sandbox behind a source address. */
  lookup: (ip: string) => Asker | undefined;
  /** Called once per connection (CONNECT) or request (plain HTTP), when it ends. */
  onOutcome: (outcome: Outcome) => void;
  /**
   * How long a tunnel's first bytes (a TLS ClientHello, or any) are awaited before it is
   * closed: the gateway judges what the client sends first, so a protocol whose server
   * speaks first cannot go through a tunnel.
   */
  helloTimeoutMs?: number;
}

export interface Gateway {
  port: number;
  close(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 7.6.1) and the proxy's own: never passed on.
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
]);

/**
 * The egress gateway: an HTTP proxy that lets a sandbox reach only the hosts on its list.
 * `CONNECT host:port` opens a tunnel (TLS, never intercepted: the gateway reads only the
 * ClientHello's server name, which must name the same host); a request in absolute form
 * (`GET http://host/path`) is forwarded by its host. The sandbox is known by the source
 * address of the connection, never by anything the client says.
 */
export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => forward(opts, req, res));
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) =>
    tunnel(opts, req, client as Socket, head),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.listen.port, opts.listen.host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : opts.listen.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * `host:port` of a CONNECT (the authority form: a name, an IPv4 address or a bracketed IPv6
 * one, and a port), host in lower case; undefined when it is not one.
 * @example parseAuthority('PyPI.org:443') // { host: 'pypi.org', port: 443 }
 */
export function parseAuthority(authority: string | undefined): { host: string; port: number } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:@/[\]\s]+):([0-9]{1,5})$/.exec(authority ?? '');
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1]!.toLowerCase(), port };
}

function tunnel(opts: GatewayOptions, req: IncomingMessage, client: Socket, head: Buffer): void {
  const started = Date.now();
  const source = client.remoteAddress ?? '';
  const target = parseAuthority(req.url);
  if (!target) {
    answer(client, 400, `svc egress: CONNECT needs host:port, not ${JSON.stringify(req.url ?? '')}`);
    return;
  }
  const asker = opts.lookup(source);
  const ask: Ask = { host: target.host, port: target.port };
  const report = (decision: Decision, upstream?: Socket) =>
    opts.onOutcome({
      asker,
      source,
      host: target.host,
      port: target.port,
      allowed: decision.allowed,
      ...(decision.allowed ? {} : { reason: decision.reason }),
      bytesOut: upstream?.bytesWritten ?? 0,
      bytesIn: upstream?.bytesRead ?? 0,
      durationMs: Date.now() - started,
    });
  const first = decide(asker, ask, source);
  if (!first.allowed) {
    answer(client, 403, first.reason);
    report(first);
    return;
  }
  client.on('error', () => undefined);
  const upstream = connect({ host: target.host, port: target.port });
  upstream.on('error', (err) => {
    opts.logger.debug({ err, host: target.host }, 'egress upstream failed');
    if (!client.destroyed) answer(client, 502, `svc egress: ${target.host}:${target.port} cannot be reached`);
  });
  upstream.once('connect', () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const waitMs = opts.helloTimeoutMs ?? 10_000;
    void readHello(client, head, waitMs)
      .catch((): Hello => ({ tls: false }))
      .then((hello) => {
        const sni = 'tls' in hello && hello.tls ? hello.serverName : undefined;
        const decision: Decision =
          'timedOut' in hello
            ? {
                allowed: false,
                reason: `svc egress: nothing was sent within ${waitMs} ms on the tunnel to ${target.host}`,
              }
            : decide(asker, sni === undefined ? ask : { ...ask, sni }, source);
        if (!decision.allowed) {
          // The 200 is sent: the refusal is the tunnel's end, before any byte reached the host.
          client.destroy();
          upstream.destroy();
          report(decision);
          return;
        }
        client.pipe(upstream);
        upstream.pipe(client);
        let done = false;
        const end = () => {
          if (done) return;
          done = true;
          client.destroy();
          upstream.destroy();
          report(decision, upstream);
        };
        client.once('close', end);
        upstream.once('close', end);
      });
  });
}

function forward(opts: GatewayOptions, req: IncomingMessage, res: ServerResponse): void {
  const started = Date.now();
  const source = req.socket.remoteAddress ?? '';
  let url: URL;
  try {
    url = new URL(req.url ?? '');
    if (url.protocol !== 'http:') throw new Error('not http');
  } catch {
    reply(res, 400, 'svc egress: a proxy request needs an absolute http:// URI; use CONNECT for https');
    return;
  }
  const host = url.hostname;
  const port = Number(url.port || 80);
  const asker = opts.lookup(source);
  const decision = decide(asker, { host, port }, source);
  let reported = false;
  const report = (bytesOut: number, bytesIn: number) => {
    if (reported) return;
    reported = true;
    opts.onOutcome({
      asker,
      source,
      host,
      port,
      allowed: decision.allowed,
      ...(decision.allowed ? {} : { reason: decision.reason }),
      bytesOut,
      bytesIn,
      durationMs: Date.now() - started,
    });
  };
  if (!decision.allowed) {
    reply(res, 403, decision.reason);
    report(0, 0);
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP.has(name)) headers[name] = value;
  }
  headers.host = url.host;
  // A socket per request (no agent), so the bytes counted are this request's alone.
  const upstream = httpRequest({
    host,
    port,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers,
    agent: false,
  });
  let socket: Socket | undefined;
  upstream.on('socket', (s) => (socket = s));
  upstream.on('response', (up) => {
    const back: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(up.headers)) {
      if (value !== undefined && !HOP.has(name)) back[name] = value;
    }
    res.writeHead(up.statusCode ?? 502, back);
    up.pipe(res);
    res.once('close', () => report(socket?.bytesWritten ?? 0, socket?.bytesRead ?? 0));
  });
  upstream.on('error', () => {
    if (!res.headersSent) reply(res, 502, `svc egress: ${url.host} cannot be reached`);
    else res.destroy();
    report(socket?.bytesWritten ?? 0, socket?.bytesRead ?? 0);
  });
  req.pipe(upstream);
}

function reply(res: ServerResponse, status: number, reason: string): void {
  const body = `${reason}\n`;
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** A raw HTTP answer on a CONNECT's socket, which then closes. */
function answer(socket: Socket, status: number, reason: string): void {
  const body = `${reason}\n`;
  const text = { 400: 'Bad Request', 403: 'Forbidden', 502: 'Bad Gateway' }[status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
