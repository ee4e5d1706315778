import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * `GET /tunnel/{port}` with `Upgrade: tcp`: after a 101, the connection is joined to
 * 127.0.0.1:{port} inside the sandbox. devnode's Services and the dev preview path ride it.
 */
export function openTunnel(port: number, socket: Duplex, head: Buffer): void {
  const upstream = connect(port, '127.0.0.1');
  upstream.once('connect', () => {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: tcp\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.once('error', (err) => {
    if (!upstream.readyState || upstream.connecting) {
      socket.end(
        `HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nnothing listens on port ${port}: ${err.message}\n`,
      );
    } else socket.destroy();
  });
  socket.on('error', () => upstream.destroy());
  socket.on('close', () => upstream.destroy());
  upstream.on('close', () => socket.destroy());
}

export function tunnelPort(req: IncomingMessage): number | undefined {
  const m = /^\/tunnel\/(\d{1,5})$/.exec(req.url ?? '');
  const port = m ? Number(m[1]) : NaN;
  return port >= 1 && port <= 65535 ? port : undefined;
}
