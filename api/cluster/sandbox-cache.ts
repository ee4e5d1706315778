import {
  CustomObjectsApi,
  ListWatch,
  Watch,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { GROUP, VERSION, type Sandbox } from '../../core/index.ts';

type Listener = (sandbox: Sandbox) => void;
/** What happened to a sandbox in the cache, for `GET /sandboxes?watch=true`. */
export type SandboxChange = 'added' | 'modified' | 'deleted';
type Watcher = (change: SandboxChange, sandbox: Sandbox) => void;

/**
 * Every Sandbox in the cluster, kept current by list+watch, so reads never touch the
 * apiserver. A watch that fails is restarted after a short pause (the ListWatch relists).
 */
export class SandboxCache {
  // client-node types metadata timestamps as Date; on the wire (and here) they are strings.
  readonly #watch: ListWatch<KubernetesObject>;
  readonly #listeners = new Set<Listener>();
  readonly #watchers = new Set<Watcher>();
  readonly #logger: Logger;
  #stopped = false;

  constructor(kc: KubeConfig, logger: Logger) {
    this.#logger = logger;
    const custom = kc.makeApiClient(CustomObjectsApi);
    const list = async () =>
      (await custom.listClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'sandboxes',
      })) as KubernetesListObject<KubernetesObject>;
    this.#watch = new ListWatch<KubernetesObject>(
      `/apis/${GROUP}/${VERSION}/sandboxes`,
      new Watch(kc),
      list,
      false,
    );
    const notify = (s: KubernetesObject) => this.#listeners.forEach((l) => l(s as unknown as Sandbox));
    const tell = (change: SandboxChange) => (s: KubernetesObject) =>
      this.#watchers.forEach((w) => w(change, s as unknown as Sandbox));
    this.#watch.on('add', notify);
    this.#watch.on('update', notify);
    this.#watch.on('delete', notify);
    this.#watch.on('add', tell('added'));
    this.#watch.on('update', tell('modified'));
    this.#watch.on('delete', tell('deleted'));
    this.#watch.on('error', (err) => {
      if (this.#stopped) return;
      this.#logger.warn({ err }, 'sandbox watch failed; restarting');
      setTimeout(() => void this.#watch.start().catch(() => undefined), 1000).unref();
    });
  }

  /** Resolves once the first list has filled the cache. */
  async start(): Promise<void> {
    await this.#watch.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#watch.stop();
  }

  get(namespace: string, name: string): Sandbox | undefined {
    return this.#watch.get(name, namespace) as unknown as Sandbox | undefined;
  }

  list(namespace?: string): readonly Sandbox[] {
    return this.#watch.list(namespace) as unknown as readonly Sandbox[];
  }

  /** Calls `watcher` on every change from now on; the returned function stops it. */
  subscribe(watcher: Watcher): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  /**
   * Resolves with the sandbox once `predicate` holds for it (checked now and on every
   * change); rejects after `timeoutMs`. Used to wait for the operator to publish status.
   */
  async until(
    namespace: string,
    name: string,
    predicate: (s: Sandbox | undefined) => boolean,
    timeoutMs: number,
  ): Promise<Sandbox | undefined> {
    const now = this.get(namespace, name);
    if (predicate(now)) return now;
    return new Promise((resolve, reject) => {
      const listener: Listener = (s) => {
        if (s.metadata.namespace !== namespace || s.metadata.name !== name) return;
        const current = this.get(namespace, name);
        if (predicate(current)) done(() => resolve(current));
      };
      const timer = setTimeout(() => done(() => reject(new Error('timed out'))), timeoutMs);
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.#listeners.delete(listener);
        settle();
      };
      this.#listeners.add(listener);
    });
  }
}
