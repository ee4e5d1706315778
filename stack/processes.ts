import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

export interface Managed {
  name: string;
  child: ChildProcess;
  logPath: string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface ManagedOptions {
  /**
   * Runs the process in a process group of its own, so a terminal's Ctrl-C (SIGINT to the
   * whole foreground group) does not reach it: its starter stops it, in its own order. The
   * control plane needs this: the components that talk to it stop first.
   */
  ownProcessGroup?: boolean;
}

/**
 * Starts a long-running binary whose output goes to a log file. The child gets
 * PR_SET_PDEATHSIG=KILL through setpriv, so it dies with this process even when the test
 * runner is killed without a chance to clean up.
 */
export function startManaged(
  name: string,
  binary: string,
  args: string[],
  logPath: string,
  options: ManagedOptions = {},
): Managed {
  const log = createWriteStream(logPath, { flags: 'a' });
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', '--', binary, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownProcessGroup ?? false,
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exited = once(child, 'exit').then(() => undefined);
  // A runner that exits without teardown still takes its children down with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.on('exit', () => process.off('exit', killOnExit));
  // Not on 'exit': the pipes may still hold output then, and a write after end throws.
  child.on('close', () => log.end());
  return {
    name,
    child,
    logPath,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
