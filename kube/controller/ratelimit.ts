import type { Clock } from './clock.ts';

/**
 * How long a failed key waits before its next try, in controller-runtime's shape: the
 * larger of a per-key exponential backoff (with jitter, so keys that failed together do not
 * retry together) and an overall token bucket (so a mass failure — the apiserver gone —
 * retries at a bounded rate in total rather than every key at every step of its backoff).
 */
export interface RetryLimits {
  /** First retry delay after a failure, doubled per consecutive failure of the key. */
  baseMs: number;
  /** The longest per-key delay. */
  maxMs: number;
  /** Retries the whole queue may start per second, once `burst` is spent. */
  perSecond: number;
  /** Retries the bucket holds when full. */
  burst: number;
}

/** controller-runtime's defaults scaled to a sandbox's life: 100 ms doubling to 5 min, 10/s, burst 100. */
export const DEFAULT_RETRY_LIMITS: RetryLimits = { baseMs: 100, maxMs: 300_000, perSecond: 10, burst: 100 };

export class RetryLimiter {
  readonly #limits: RetryLimits;
  readonly #clock: Clock;
  readonly #random: () => number;
  #tokens: number;
  #refilledAt: number;

  constructor(limits: RetryLimits, clock: Clock, random: () => number) {
    this.#limits = limits;
    this.#clock = clock;
    this.#random = random;
    this.#tokens = limits.burst;
    this.#refilledAt = clock.now();
  }

  /**
   * The delay before the `failures`-th consecutive retry of a key. The per-key part is drawn
   * between half and all of `base·2^(failures-1)` (capped), "equal jitter": never shorter
   * than half the backoff, never past the cap. The bucket's part is taken as a reservation,
   * like Go's rate.Limiter: the tokens may go below zero, and each retry past the burst waits
   * its turn.
   */
  delay(failures: number): number {
    const { baseMs, maxMs } = this.#limits;
    const backoff = Math.min(baseMs * 2 ** Math.min(failures - 1, 52), maxMs);
    const perKey = Math.round(backoff / 2 + (backoff / 2) * this.#random());
    return Math.max(perKey, this.#reserve());
  }

  #reserve(): number {
    const { perSecond, burst } = this.#limits;
    const now = this.#clock.now();
    this.#tokens = Math.min(burst, this.#tokens + ((now - this.#refilledAt) * perSecond) / 1000);
    this.#refilledAt = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens * 1000) / perSecond);
  }
}
