import { createServer } from 'node:net';

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
