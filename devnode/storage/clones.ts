import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Layout } from '../options.ts';
import { mountOverlay, mounted, unmount } from './mounts.ts';

export interface ClonesDeps {
  logger: Logger;
  layout: Layout;
  /** devnode's data folder: clones keep their layers in `clones/`, deleted snapshots' data waits in `retained/`. */
  dataDir: string;
}

/**
 * Claims hydrated copy-on-write from a VolumeSnapshot, as a CSI driver clones a ZFS or
 * Ceph volume: the claim's folder is an overlay whose lower layer is the snapshot's data
 * (never written) and whose upper layer is the claim's own, so hydration copies nothing
 * however big the snapshot is. A clone's record (`clones/<pv>/`: the snapshot content it
 * reads, its upper and work layers) lives on disk beside the volumes, so a devnode restart
 * or a reboot mounts the same clones again; the mounts themselves live only while devnode
 * runs. Where overlay mounts fail (not root, no overlayfs) `create` says so once and the
 * provisioner copies the snapshot instead.
 */
export class Clones {
  readonly #d: ClonesDeps;
  #unavailable = false;

  constructor(deps: ClonesDeps) {
    this.#d = deps;
  }

  /** Where a snapshot content's data is: its own folder, or the retained one once the snapshot is deleted. */
  dataOf(content: string): string {
    const own = this.#d.layout.snapshot(content);
    return existsSync(own) ? own : this.retained(content);
  }

  retained(content: string): string {
    return join(this.#d.dataDir, 'retained', content);
  }

  /** Contents whose VolumeSnapshot is deleted but whose data is kept for clones. */
  async retainedContents(): Promise<string[]> {
    return readdir(join(this.#d.dataDir, 'retained')).catch(() => []);
  }

  /**
   * Makes the volume `pv` a clone of `content`'s data, mounted on the volume's folder.
   * False when overlay mounts do not work here: the caller copies the data instead.
   */
  async create(pv: string, content: string): Promise<boolean> {
    if (this.#unavailable) return false;
    const { upper, work, source } = this.#record(pv);
    // Not root fails here (chown) or at the mount; either way the caller copies.
    try {
      await mkdir(work, { recursive: true });
      await mkdir(upper, { recursive: true });
      // The merged root takes the upper layer's owner and mode; they should be the snapshot's.
      const root = await stat(this.dataOf(content));
      await chown(upper, root.uid, root.gid);
      await chmod(upper, root.mode & 0o7777);
      await writeFile(`${source}.tmp`, content);
      await rename(`${source}.tmp`, source);
      await mkdir(this.#d.layout.volume(pv), { recursive: true });
      await this.mount(pv);
      return true;
    } catch (err) {
      this.#unavailable = true;
      this.#d.logger.info(
        { err: (err as Error).message },
        'no overlay mounts here: claims are hydrated from snapshots by copying',
      );
      await rm(join(this.#d.dataDir, 'clones', pv), { recursive: true, force: true });
      return false;
    }
  }

  /** The snapshot content a clone reads, or undefined for a volume of its own. */
  async source(pv: string): Promise<string | undefined> {
    return readFile(this.#record(pv).source, 'utf8').catch(() => undefined);
  }

  /** The clones reading `content`'s data. */
  async users(content: string): Promise<string[]> {
    const pvs = await this.#all();
    const sources = await Promise.all(pvs.map((pv) => this.source(pv)));
    return pvs.filter((_, i) => sources[i] === content);
  }

  /** Mounts the clone on its volume folder unless it is mounted already. */
  async mount(pv: string): Promise<void> {
    const target = this.#d.layout.volume(pv);
    if (await mounted(target)) return;
    const content = await this.source(pv);
    if (!content) throw new Error(`${pv} is not a clone`);
    const { upper, work } = this.#record(pv);
    await mountOverlay({ lower: this.dataOf(content), upper, work }, target);
  }

  /** Mounts the volume if it is a clone: its folder is then the merged view, never an empty mount point. */
  async ensureMounted(pv: string): Promise<void> {
    if (await this.source(pv)) await this.mount(pv);
  }

  /** Unmounts the clone (nothing when it is not mounted); its folder may then be removed. */
  async unmount(pv: string): Promise<void> {
    await unmount(this.#d.layout.volume(pv));
  }

  /** Drops an unmounted clone's record and layers: what it wrote goes with it. */
  async remove(pv: string): Promise<void> {
    if (await mounted(this.#d.layout.volume(pv))) throw new Error(`${pv} is still mounted`);
    await rm(join(this.#d.dataDir, 'clones', pv), { recursive: true, force: true });
  }

  /** devnode starting: every clone whose volume folder exists is mounted again. */
  async mountAll(): Promise<void> {
    for (const pv of await this.#all()) {
      if (!existsSync(this.#d.layout.volume(pv))) continue; // hydration cut short; the claim redoes it
      await this.mount(pv).catch((err: unknown) =>
        this.#d.logger.warn({ volume: pv, err: (err as Error).message }, 'clone could not be mounted'),
      );
    }
  }

  /** devnode stopping: no mount outlives it (its Pods are stopped first). */
  async unmountAll(): Promise<void> {
    for (const pv of await this.#all()) {
      await this.unmount(pv).catch((err: unknown) =>
        this.#d.logger.warn({ volume: pv, err: (err as Error).message }, 'clone could not be unmounted'),
      );
    }
  }

  #record(pv: string) {
    const dir = join(this.#d.dataDir, 'clones', pv);
    return { source: join(dir, 'source'), upper: join(dir, 'upper'), work: join(dir, 'work') };
  }

  async #all(): Promise<string[]> {
    return readdir(join(this.#d.dataDir, 'clones')).catch(() => []);
  }
}
