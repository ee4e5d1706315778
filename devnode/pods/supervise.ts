import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { PodCgroup } from './cgroup.ts';
import { readChildPid } from './info-fd.ts';
import type { ContainerState } from './status.ts';

/** A container's process while it runs; `pid` is its pid 1 once bwrap reports it. */
export interface Running {
  startedAt: Date;
  child: ChildProcess;
  pid?: number;
}

/** A container's state with the process devnode supervises. */
export interface Supervised extends ContainerState {
  running?: Running;
}

/**
 * Starts bwrap with `args` (in the Pod's cgroup, when there is one), its output appended
 * to `logPath`; the pid of the container's pid 1 fills in `pid` once bwrap writes it.
 */
export function spawnContainer(
  args: string[],
  env: Record<string, string>,
  cgroup: PodCgroup | undefined,
  logPath: string,
): Running {
  const log = createWriteStream(logPath, { flags: 'a' });
  // setpriv: the bwrap monitor itself dies with devnode (bwrap's --die-with-parent covers its child).
  const argv = ['setpriv', '--pdeathsig', 'KILL', '--', 'bwrap', ...args];
  const [command, ...rest] = cgroup ? cgroup.wrap(argv) : argv;
  const child = spawn(command!, rest, { env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const running: Running = { startedAt: new Date(), child, pid: undefined };
  readChildPid(child.stdio[3] as Readable | null).then(
    (pid) => (running.pid = pid),
    () => undefined,
  );
  return running;
}

/** The exit code of the process, a signal counted as 128 + its number as a shell does. */
export function exitCodeOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? 128 + signalNumber(signal))),
  );
}

/** Whether `restartPolicy` restarts a container that exited with `exitCode`. */
export function restarts(policy: string | undefined, exitCode: number): boolean {
  const p = policy ?? 'Always';
  return p === 'Always' || (p === 'OnFailure' && exitCode !== 0);
}

/** 1 s doubling to 30 s: the kubelet's CrashLoopBackOff, shortened for one machine. */
export function backoffMs(restarts: number): number {
  return Math.min(1000 * 2 ** restarts, 30_000);
}

function signalNumber(signal: NodeJS.Signals | null): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return (signal && numbers[signal]) ?? 0;
}

/** SIGTERM to the container's pid 1, SIGKILL (which empties its pid namespace) after the grace. */
export async function stopProcess(r: { child: ChildProcess; pid?: number }, graceMs: number): Promise<void> {
  const { child } = r;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(r.pid ?? child.pid!, s);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => {
    signal('SIGKILL');
    child.kill('SIGKILL');
  }, graceMs);
  await exited;
  clearTimeout(timer);
}
