import { spawn, type ChildProcess } from 'node:child_process';

/**
 * The template's own process, started by sandboxd as its child with the container's stdio.
 * Orphaned grandchildren are reaped by the Pod's pause container (the operator sets
 * `shareProcessNamespace`) or by bubblewrap's init on devnode: Node cannot wait() for
 * processes it did not start.
 */
export function startTemplateProcess(
  argv: string[],
  opts: { cwd: string; env?: Record<string, string> },
): ChildProcess | undefined {
  if (argv.length === 0) return undefined;
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: opts.cwd,
    env: opts.env,
    stdio: 'inherit',
    detached: true,
  });
  child.on('error', (err) => process.stderr.write(`sandboxd: template command ${argv[0]}: ${err.message}\n`));
  return child;
}

/** SIGTERM to the process group, SIGKILL after `graceMs`; resolves when it is gone. */
export async function stopProcess(child: ChildProcess | undefined, graceMs: number): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), graceMs);
  await gone;
  clearTimeout(timer);
}
