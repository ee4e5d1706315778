// The Go sandboxd (dist/sandboxd, built by `make sandboxd-binary`) as a real process for
// black-box tests: it listens on a unix socket and says it is ready by writing its ready file.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, watch } from 'node:fs';
import { join, resolve } from 'node:path';
import { SandboxdClient } from '../../kube/index.ts';

export const SANDBOXD_BINARY = resolve(import.meta.dirname, '../../dist/sandboxd');

export interface Daemon {
  client: SandboxdClient;
  socket: string;
  child: ChildProcess;
  /** What sandboxd wrote to stderr so far. */
  stderr: () => string;
  /** SIGTERM, then its exit code. */
  stop: () => Promise<number | null>;
}

/** Starts sandboxd in `dir` (socket and ready file there) and resolves once it is ready. */
export async function startSandboxd(opts: {
  dir: string;
  name?: string;
  token: string;
  workspace: string;
  args?: string[];
  env?: Record<string, string>;
  command?: string[];
  binary?: string;
}): Promise<Daemon> {
  if (!existsSync(opts.binary ?? SANDBOXD_BINARY))
    throw new Error(`${SANDBOXD_BINARY} is missing: run make sandboxd-binary`);
  const name = opts.name ?? 'sandboxd';
  const socket = join(opts.dir, `${name}.sock`);
  const readyFile = join(opts.dir, `${name}.ready`);
  const ready = waitForFile(opts.dir, `${name}.ready`);
  const child = spawn(
    opts.binary ?? SANDBOXD_BINARY,
    [...(opts.args ?? []), ...(opts.command ? ['--', ...opts.command] : [])],
    {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        SANDBOXD_LISTEN: `unix:${socket}`,
        SANDBOXD_TOKEN: opts.token,
        SANDBOXD_WORKSPACE: opts.workspace,
        SANDBOXD_READY_FILE: readyFile,
        ...opts.env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  await Promise.race([
    ready,
    exited.then((code) => {
      throw new Error(`sandboxd exited ${code} before it was ready: ${stderr}`);
    }),
  ]);
  return {
    client: new SandboxdClient({ address: `unix:${socket}`, token: opts.token }),
    socket,
    child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Resolves once `dir/name` exists: a watch on the folder, no polling. */
export function waitForFile(dir: string, name: string, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dir, () => {
      if (existsSync(join(dir, name))) done();
    });
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`${join(dir, name)} did not appear within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      watcher.close();
      resolve();
    };
    if (existsSync(join(dir, name))) done();
  });
}
