import { type Managed, startManaged } from '../../stack/index.ts';

export interface Supervised {
  readonly name: string;
  readonly logPath: string;
  /** Times the component died and was started again. */
  readonly restarts: number;
  /** The running process's pid, if one runs. */
  readonly pid: number | undefined;
  /** Stops the component and its supervision. */
  stop(): Promise<void>;
}

export interface SuperviseOptions {
  name: string;
  binary: string;
  args: string[];
  logPath: string;
  say: (line: string) => void;
  /** First delay before a restart; doubled per quick death, at most `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /**
   * Aborted when the whole run stops. A terminal's Ctrl-C sends SIGINT to every process of
   * the foreground group, so a component may exit on its own before `stop()` reaches it:
   * that is a stop, not a death to restart.
   */
  shutdown?: AbortSignal;
}

/** A run this long counts as healthy: the next death starts the backoff afresh. */
const HEALTHY_MS = 60_000;
/**
 * How long a death waits before it counts as one: the SIGINT that made a component exit
 * reaches make dev at the same moment, and its handler may run just after the exit event.
 */
const SETTLE_MS = 200;

/**
 * Runs a component as a kubelet runs a container with `restartPolicy: Always`: when it dies
 * (a crash, an OOM kill, someone's SIGKILL) it is started again with the same arguments
 * after a backoff that doubles while it keeps dying quickly. Every (re)start gets
 * PR_SET_PDEATHSIG through `startManaged`, so none outlives `make dev`.
 */
export function supervise(o: SuperviseOptions): Supervised {
  const base = o.backoffMs ?? 1_000;
  const max = o.maxBackoffMs ?? 30_000;
  let current: Managed;
  let restarts = 0;
  let delay = base;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;

  const launch = () => {
    const m = startManaged(o.name, o.binary, o.args, o.logPath);
    const startedAt = Date.now();
    current = m;
    m.child.once('exit', (code, signal) => {
      const ranMs = Date.now() - startedAt;
      timer = setTimeout(() => {
        timer = undefined;
        if (stopping || o.shutdown?.aborted) return;
        delay = ranMs >= HEALTHY_MS ? base : delay;
        const wait = delay;
        delay = Math.min(delay * 2, max);
        o.say(
          `${o.name} exited (${signal ?? `code ${code}`}); restarting it in ${wait / 1000} s (log: ${o.logPath})`,
        );
        timer = setTimeout(() => {
          timer = undefined;
          if (stopping || o.shutdown?.aborted) return;
          restarts++;
          launch();
        }, wait);
      }, SETTLE_MS);
    });
  };
  launch();

  return {
    name: o.name,
    logPath: o.logPath,
    get restarts() {
      return restarts;
    },
    get pid() {
      const c = current.child;
      return c.exitCode === null && c.signalCode === null ? c.pid : undefined;
    },
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      await current.stop();
    },
  };
}
