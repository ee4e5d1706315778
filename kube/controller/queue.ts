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
  /** Reconciles running at once across all keys; unlimited when unset. */
  maxConcurrent?: number;
  /** First retry delay after a failure, doubled per consecutive failure of the key. */
  backoffBaseMs?: number;
  /** The longest retry delay. */
  backoffMaxMs?: number;
}

/**
 * A work queue keyed by `namespace/name`, in controller-runtime's shape: duplicate adds
 * merge, one reconcile per key runs at a time (an add during it reruns it once after), at
 * most `maxConcurrent` run at once (the rest wait in arrival order), a thrown error retries
 * with per-key exponential backoff (reset by a success), and a returned number requeues
 * after it. Of two pending requeues of a key the earlier wins.
 */
export class WorkQueue {
  readonly #reconcile: Reconcile;
  readonly #logger: Logger;
  readonly #controller: string | undefined;
  readonly #max: number;
  readonly #backoffBase: number;
  readonly #backoffMax: number;
  /** Keys ready to run, in arrival order (a Set keeps insertion order and merges duplicates). */
  readonly #ready = new Set<string>();
  readonly #running = new Set<string>();
  readonly #dirty = new Set<string>();
  readonly #timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  readonly #failures = new Map<string, number>();
  readonly #idle = new Set<() => void>();
  #stopped = false;

  constructor(reconcile: Reconcile, logger: Logger, opts: WorkQueueOptions = {}) {
    this.#reconcile = reconcile;
    this.#logger = logger;
    this.#controller = opts.controller;
    this.#max = Math.max(1, opts.maxConcurrent ?? Infinity);
    this.#backoffBase = opts.backoffBaseMs ?? 200;
    this.#backoffMax = opts.backoffMaxMs ?? 10_000;
  }

  add(key: string, afterMs = 0): void {
    if (this.#stopped) return;
    if (afterMs > 0) {
      const at = Date.now() + afterMs;
      const existing = this.#timers.get(key);
      // The earlier requeue wins: a later one would leave the object unlooked-at too long.
      if (existing && existing.at <= at) return;
      if (existing) clearTimeout(existing.timer);
      const timer = setTimeout(() => {
        this.#timers.delete(key);
        this.add(key);
      }, afterMs);
      timer.unref();
      this.#timers.set(key, { at, timer });
      return;
    }
    if (this.#running.has(key)) {
      this.#dirty.add(key);
      return;
    }
    this.#ready.add(key);
    this.#pump();
  }

  /** Starts ready keys while there is room under the cap. */
  #pump(): void {
    for (const key of this.#ready) {
      if (this.#running.size >= this.#max) return;
      this.#ready.delete(key);
      void this.#run(key);
    }
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
      const backoff = Math.min(this.#backoffBase * 2 ** (n - 1), this.#backoffMax);
      log.warn({ err: (err as Error).message, retryInMs: backoff }, 'reconcile failed');
      this.add(key, backoff);
    } finally {
      this.#running.delete(key);
      if (this.#dirty.delete(key)) this.add(key);
      this.#pump();
      if (this.#running.size === 0) this.#idle.forEach((f) => f());
    }
  }

  /** Keys being reconciled, waiting to run or rerun, or waiting out a requeue or a backoff. */
  get depth(): number {
    return new Set([...this.#ready, ...this.#running, ...this.#dirty, ...this.#timers.keys()]).size;
  }

  /** Stops taking work and waits for reconciles in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timers.forEach((t) => clearTimeout(t.timer));
    this.#timers.clear();
    this.#ready.clear();
    if (this.#running.size === 0) return;
    await new Promise<void>((resolve) => this.#idle.add(resolve));
  }
}
