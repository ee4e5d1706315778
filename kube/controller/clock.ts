/**
 * Time as the work queue reads it: now, and timers. Injectable so the queue's semantics
 * (backoff, jitter, the overall bucket, requeues) are tested on a fake clock without
 * touching the process's own timers.
 */
export interface Clock {
  now(): number;
  /** Calls `fn` after `ms`; the timer never keeps the process alive. */
  after(ms: number, fn: () => void): { cancel(): void };
}

/** The process's clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};
