import type { Logger } from 'pino';

/** What a reconcile returns: nothing (done) or milliseconds after which to look again. */
export type Reconcile = (key: string) => Promise<number | void>;

/**
 * A work queue keyed by `namespace/name`, in controller-runtime's shape: duplicate adds
 * merge, one reconcile per key runs at a time (an add during it reruns it once after), a
 * thrown error retries with exponential backoff, and a returned number requeues after it.
 */
export class WorkQueue {
  readonly #reconcile: Reconcile;
  readonly #logger: Logger;
  readonly #running = new Set<string>();
  readonly #dirty = new Set<string>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #failures = new Map<string, number>();
  readonly #idle = new Set<() => void>();
  #stopped = false;

  constructor(reconcile: Reconcile, logger: Logger) {
    this.#reconcile = reconcile;
    this.#logger = logger;
  }

  add(key: string, afterMs = 0): void {
    if (this.#stopped) return;
    if (afterMs > 0) {
      const existing = this.#timers.get(key);
      if (existing) return;
      const timer = setTimeout(() => {
        this.#timers.delete(key);
        this.add(key);
      }, afterMs);
      timer.unref();
      this.#timers.set(key, timer);
      return;
    }
    if (this.#running.has(key)) {
      this.#dirty.add(key);
      return;
    }
    void this.#run(key);
  }

  async #run(key: string): Promise<void> {
    this.#running.add(key);
    try {
      const after = await this.#reconcile(key);
      this.#failures.delete(key);
      if (typeof after === 'number') this.add(key, after);
    } catch (err) {
      const n = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, n);
      const backoff = Math.min(200 * 2 ** (n - 1), 10_000);
      this.#logger.warn({ key, err: (err as Error).message, retryInMs: backoff }, 'reconcile failed');
      this.add(key, backoff);
    } finally {
      this.#running.delete(key);
      if (this.#dirty.delete(key)) this.add(key);
      if (this.#running.size === 0) this.#idle.forEach((f) => f());
    }
  }

  /** Keys being reconciled, waiting to rerun, or waiting out a requeue or a backoff. */
  get depth(): number {
    return this.#running.size + this.#dirty.size + this.#timers.size;
  }

  /** Stops taking work and waits for reconciles in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timers.forEach((t) => clearTimeout(t));
    this.#timers.clear();
    if (this.#running.size === 0) return;
    await new Promise<void>((resolve) => this.#idle.add(resolve));
  }
}
