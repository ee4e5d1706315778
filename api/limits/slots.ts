/**
 * `limits.perUserConcurrency` when unset: twice a sandbox's exec cap (32), so a user fills
 * two sandboxes' own caps before this one; far above what one person's tools run at once.
 */
export const DEFAULT_PER_USER_CONCURRENCY = 64;

/** One call's hold on its user's count; `release` may be called any number of times. */
export interface Slot {
  release: () => void;
}

/**
 * How many calls each user has in flight, up to `max` each. Pure bookkeeping in one
 * process: the count of a user with nothing in flight is dropped, so the map holds only
 * users with calls running.
 */
export class UserSlots {
  readonly max: number;
  readonly #inflight = new Map<string, number>();

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1)
      throw new Error(`a per-user cap must be a positive integer, not ${max}`);
    this.max = max;
  }

  /** A slot for `user`, or undefined when the user is at the cap. */
  take(user: string): Slot | undefined {
    const n = this.#inflight.get(user) ?? 0;
    if (n >= this.max) return undefined;
    this.#inflight.set(user, n + 1);
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        const left = (this.#inflight.get(user) ?? 1) - 1;
        if (left > 0) this.#inflight.set(user, left);
        else this.#inflight.delete(user);
      },
    };
  }

  /** The calls `user` has in flight. */
  inflight(user: string): number {
    return this.#inflight.get(user) ?? 0;
  }

  /** How many users have calls in flight. */
  get users(): number {
    return this.#inflight.size;
  }
}
