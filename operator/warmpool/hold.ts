/** The longest a claim under way holds its pool's refill. */
const CLAIM_HOLD_MS = 5_000;

/**
 * Claims under way, by pool: from just before a claim's take until its pass has written the
 * sandbox's status, the pool's reconcile waits (its refill's Secret, claim and Pod, and the
 * start of that Pod, would compete with the status write the sandbox's owner waits on). A
 * hold lasts `CLAIM_HOLD_MS` at most: a pass stuck on a sandboxd that does not answer must
 * not keep its pool short.
 */
export class RefillHolds {
  /** Pool key → sandbox uid → when its hold began. */
  readonly #held = new Map<string, Map<string, number>>();
  readonly #enqueue: (poolKey: string) => void;

  /** `enqueue` reconciles a pool: called when a hold ends (the pool may have waited). */
  constructor(enqueue: (poolKey: string) => void) {
    this.#enqueue = enqueue;
  }

  /** Holds `poolKey` for the claim of sandbox `uid`; the function returned ends the hold. */
  hold(poolKey: string, uid: string): () => void {
    const held = this.#held.get(poolKey) ?? new Map<string, number>();
    this.#held.set(poolKey, held.set(uid, Date.now()));
    return () => {
      held.delete(uid);
      if (held.size === 0 && this.#held.get(poolKey) === held) this.#held.delete(poolKey);
      this.#enqueue(poolKey);
    };
  }

  /** How long the pool should still wait, 0 when nothing holds it. */
  ms(poolKey: string): number {
    const began = [...(this.#held.get(poolKey)?.values() ?? [])];
    return Math.max(0, ...began.map((at) => at + CLAIM_HOLD_MS - Date.now()));
  }
}
