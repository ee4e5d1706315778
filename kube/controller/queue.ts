import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { splitKey } from './informer.ts';

/**
 * What a reconcile returns: nothing (done) or milliseconds after which to look again.
 * `log` is this pass's own child logger: whatever the pass logs (and any work it starts)
 * carries the controller, the object's namespace and name, and the pass's id.
 */
export type Reconcile = (key: string, log: Logger) => Promise<number | void>;

export interface WorkQueueOptions {
  /** Named on every line a reconcile logs (`controller`), as controller-runtime does. */
  controller?: string;
}

/**
 * A work queue keyed by `namespace/name`, in controller-runtime's shape: duplicate adds
 * merge, one reconcile per key runs at a time (an add during it reruns it once after), a
 * thrown error retries with exponential backoff, and a returned number requeues after it.
 */
export class WorkQueue {
  readonly #reconcile: Reconcile;
  readonly #logger: Logger;
  readonly #controller: string | undefined;
  readonly #running = new Set<string>();
  readonly #dirty = new Set<string>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #failures = new Map<string, number>();
  readonly #idle = new Set<() => void>();
  #stopped = false;

  constructor(reconcile: Reconcile, logger: Logger, opts: WorkQueueOptions = {}) {
    this.#reconcile = reconcile;
    this.#logger = logger;
    this.#controller = opts.controller;
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
    // The key only, never the object: a line must not carry a spec's values.
    const log = this.#logger.child({
      ...(this.#controller ? { controller: this.#controller } : {}),
      ...splitKey(key),
      reconcileId: randomBytes(4).toString('hex'),
    });
    try {
      const after = await this.#reconcile(key, log);
      this.#failures.delete(key);
      log.debug({ requeueMs: typeof after === 'number' ? after : undefined }, 'reconciled');
      if (typeof after === 'number') this.add(key, after);
    } catch (err) {
      const n = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, n);
      const backoff = Math.min(200 * 2 ** (n - 1), 10_000);
      log.warn({ err: (err as Error).message, retryInMs: backoff }, 'reconcile failed');
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
