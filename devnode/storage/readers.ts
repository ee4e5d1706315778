/**
 * Snapshot contents being copied into claims right now. Deleting a snapshot waits while
 * its content is being read, so a hydration never sees its source vanish halfway.
 */
export class ReadersInFlight {
  readonly #count = new Map<string, number>();

  async reading<T>(content: string, work: () => Promise<T>): Promise<T> {
    this.#count.set(content, (this.#count.get(content) ?? 0) + 1);
    try {
      return await work();
    } finally {
      const n = (this.#count.get(content) ?? 1) - 1;
      if (n === 0) this.#count.delete(content);
      else this.#count.set(content, n);
    }
  }

  busy(content: string): boolean {
    return this.#count.has(content);
  }
}
