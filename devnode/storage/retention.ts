import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { Layout } from '../options.ts';
import type { Clones } from './clones.ts';

export interface SnapshotDataDeps {
  logger: Logger;
  layout: Layout;
  clones: Clones;
}

/**
 * The data of VolumeSnapshots and who reads it. A claim cloned copy-on-write reads its
 * snapshot's folder for as long as the claim lives, so deleting the snapshot moves that
 * folder to `retained/` while any clone uses it, and the last clone's release removes it:
 * deleting a snapshot never touches a claim hydrated from it. The steps on one content's
 * data (hydrating from it, retiring it, releasing a clone of it) run one at a time, so a
 * hydration never sees its source vanish halfway and a retirement never misses a clone.
 */
export class SnapshotData {
  readonly #d: SnapshotDataDeps;
  readonly #tails = new Map<string, Promise<unknown>>();

  constructor(deps: SnapshotDataDeps) {
    this.#d = deps;
  }

  /** Runs `work` with the folder of `content`'s data, which stays put until `work` ends. */
  use<T>(content: string, work: (dir: string) => Promise<T>): Promise<T> {
    return this.#serially(content, async () => {
      const dir = this.#d.clones.dataOf(content);
      if (!existsSync(dir)) throw new Error(`snapshot content ${content} has no data`);
      return work(dir);
    });
  }

  /** The VolumeSnapshot is being deleted: its data goes now, or once its last clone does. */
  retire(content: string): Promise<void> {
    return this.#serially(content, async () => {
      const own = this.#d.layout.snapshot(content);
      if (!existsSync(own)) return;
      const users = await this.#d.clones.users(content);
      if (users.length === 0) return rm(own, { recursive: true, force: true });
      // A mounted overlay keeps its lower layer through a rename; a later mount finds it by content name.
      const retained = this.#d.clones.retained(content);
      await mkdir(dirname(retained), { recursive: true });
      await rename(own, retained);
      this.#d.logger.info({ content, clones: users }, 'snapshot deleted; its data is kept for its clones');
    });
  }

  /** Removes an unmounted clone, and its snapshot's retained data if it was the last reader. */
  release(pv: string, content: string): Promise<void> {
    return this.#serially(content, async () => {
      await this.#d.clones.remove(pv);
      await this.#collect(content);
    });
  }

  /** devnode starting: retained data no clone reads any more (a release cut short) goes. */
  async collectOrphans(): Promise<void> {
    for (const content of await this.#d.clones.retainedContents())
      await this.#serially(content, () => this.#collect(content));
  }

  async #collect(content: string): Promise<void> {
    const retained = this.#d.clones.retained(content);
    if (!existsSync(retained) || (await this.#d.clones.users(content)).length > 0) return;
    await rm(retained, { recursive: true, force: true });
    this.#d.logger.info({ content }, 'retained snapshot data removed with its last clone');
  }

  #serially<T>(content: string, work: () => Promise<T>): Promise<T> {
    const mine = (this.#tails.get(content) ?? Promise.resolve()).then(work);
    const tail = mine.catch(() => undefined);
    this.#tails.set(content, tail);
    void tail.then(() => {
      if (this.#tails.get(content) === tail) this.#tails.delete(content);
    });
    return mine;
  }
}
