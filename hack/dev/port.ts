import { createServer } from 'node:net';
import { readFile, readdir, readlink } from 'node:fs/promises';

/**
 * Why the API could not listen on 127.0.0.1:`port`, or undefined when it can: the port is
 * tried by binding it (and letting go at once), which is the only answer that counts.
 */
export function portProblem(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) =>
      resolve(
        err.code === 'EADDRINUSE'
          ? `port ${port} on 127.0.0.1 is already in use by another program`
          : `port ${port} on 127.0.0.1 cannot be used (${err.code ?? err.message})`,
      ),
    );
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** A TCP port number from the command line (1–65535), or undefined. */
export function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65_535 ? port : undefined;
}

/**
 * Whether process `pid` holds the socket listening on 127.0.0.1:`port`: the proof that an
 * answer on that port comes from our API and not from a program that took the port after
 * `portProblem` looked (an HTTP answer alone proves nothing: any server can say 200).
 * Linux only, like devnode: the listening socket's inode from /proc/net/tcp, found among
 * the process's file descriptors.
 */
export async function listensOn(pid: number, port: number): Promise<boolean> {
  const table = await readFile('/proc/net/tcp', 'utf8').catch(() => '');
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  // Fields: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode.
  const inodes = table
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[1] === local && f[3] === '0A')
    .map((f) => `socket:[${f[9]}]`);
  if (inodes.length === 0) return false;
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    if (inodes.includes(target)) return true;
  }
  return false;
}
