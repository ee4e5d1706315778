import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { systemClock, type Clock } from './clock.ts';
import { splitKey } from './informer.ts';
import { DEFAULT_RETRY_LIMITS, RetryLimiter, type RetryLimits } from './ratelimit.ts';

/**
 * What a reconcile returns: nothing (done) or milliseconds after which to look again.
 * `log` is this pass's own child logger: whatever the pass logs (and any work it starts)
 * carries the controller, the object's namespace and name, and the pass's id.
 */
export type Reconcile = (key: string, log: Logger) => Promise<number | void>;

/**
 * Thrown by a reconcile when trying again cannot help until the object itself changes (an
 * invalid spec, a refusal that names the object): the queue stops retrying the key, logs
 * the error once at `error`, and hands it to `onTerminal` so the controller can say why
 * where a user looks (a condition). A later change of the object enqueues it afresh.
 * controller-runtime's `reconcile.TerminalError`.
 */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/** Reconciles running at once when a controller does not say: room for slow passes, not a stampede. */
export const DEFAULT_MAX_CONCURRENT = 8;

export interface WorkQueueOptions {
  /** Named on every line a reconcile logs (`controller`), as controller-runtime does. */
  controller?: string;
  /** Reconciles running at once across all keys (default `DEFAULT_MAX_CONCURRENT`). */
  maxConcurrent?: number;
  /** Retries of failed keys: per-key backoff and the overall bucket (`DEFAULT_RETRY_LIMITS`). */
  retry?: Partial<RetryLimits>;
  /** Told of a key whose reconcile threw a `TerminalError` (after it was logged). */
  onTerminal?: (key: string, err: TerminalError, log: Logger) => Promise<void> | void;
  /** Time and timers (tests pass a fake one). */
  clock?: Clock;
  /** The jitter's source, in [0, 1) (tests pass a fixed one). */
  random?: () => number;
}

/**
 * A work queue keyed by `namespace/name`, in controller-runtime's shape: duplicate adds
 * merge, one reconcile per key runs at a time (an add during it reruns it once after), at
 * most `maxConcurrent` run at once (the rest wait in arrival order), a thrown error retries
 * after the `RetryLimiter`'s delay (per-key exponential backoff with jitter, reset by a
 * success, and an overall token bucket), a `TerminalError` is not retried, and a returned
 * number requeues after it. Of two pending requeues of a key the earlier wins.
 */
export class WorkQueue {
  readonly #reconcile: Reconcile;
  readonly #logger: Logger;
  readonly #controller: string | undefined;
  readonly #max: number;
  readonly #limiter: RetryLimiter;
  readonly #onTerminal: WorkQueueOptions['onTerminal'];
  readonly #clock: Clock;
  /** Keys ready to run, in arrival order (a Set keeps insertion order and merges duplicates). */
  readonly #ready = new Set<string>();
  readonly #running = new Set<string>();
  readonly #dirty = new Set<string>();
  readonly #timers = new Map<string, { at: number; timer: { cancel(): void } }>();
  readonly #failures = new Map<string, number>();
  readonly #idle = new Set<() => void>();
  #stopped = false;

  constructor(reconcile: Reconcile, logger: Logger, opts: WorkQueueOptions = {}) {
    this.#reconcile = reconcile;
    this.#logger = logger;
    this.#controller = opts.controller;
    this.#max = Math.max(1, opts.maxConcurrent ?? DEFAULT_MAX_CONCURRENT);
    this.#clock = opts.clock ?? systemClock;
    this.#limiter = new RetryLimiter(
      { ...DEFAULT_RETRY_LIMITS, ...opts.retry },
      this.#clock,
      opts.random ?? Math.random,
    );
    this.#onTerminal = opts.onTerminal;
  }

  add(key: string, afterMs = 0): void {
    if (this.#stopped) return;
    if (afterMs > 0) {
      const at = this.#clock.now() + afterMs;
      const existing = this.#timers.get(key);
      // The earlier requeue wins: a later one would leave the object unlooked-at too long.
      if (existing && existing.at <= at) return;
      existing?.timer.cancel();
      const timer = this.#clock.after(afterMs, () => {
        this.#timers.delete(key);
        this.add(key);
      });
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
      if (err instanceof TerminalError) {
        this.#failures.delete(key);
        // The stack stays: a terminal error is read once, so it must say where it came from.
        log.error({ err }, 'reconcile failed for good: not retried until the object changes');
        await Promise.resolve(this.#onTerminal?.(key, err, log)).catch((e: unknown) =>
          log.warn({ err: e }, 'saying why a reconcile failed for good failed'),
        );
        return;
      }
      const n = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, n);
      const retryInMs = this.#limiter.delay(n);
      log.warn({ err, retryInMs, failures: n }, 'reconcile failed');
      this.add(key, retryInMs);
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
    this.#timers.forEach((t) => t.timer.cancel());
    this.#timers.clear();
    this.#ready.clear();
    if (this.#running.size === 0) return;
    await new Promise<void>((resolve) => this.#idle.add(resolve));
  }
}
