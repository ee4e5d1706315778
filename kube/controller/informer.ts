import { ListWatch, Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Indexer, type IndexFunc } from './indexer.ts';

/** The shortest a watch is kept open when nothing happens (at most twice that). */
const WATCH_MIN_MS = 5 * 60_000;

type Lister = () => Promise<{ items: KubernetesObject[]; metadata?: { resourceVersion?: string } }>;

/** One list+watch: a path and the list call that reads the same objects. */
export interface WatchScope {
  path: string;
  list: Lister;
}

/**
 * A list+watch cache of one kind. client-node's ListWatch relists on a closed watch but
 * stops on an error, so this restarts it after a short pause. Each add, update or delete
 * calls the `onChange` callbacks (a controller enqueues keys there); reads come from the cache.
 * Given `scopes` (one per namespace) it is one cache over several watches: an operator
 * allowed into some namespaces only watches each of them, never the whole cluster.
 */
export class Informer<T extends KubernetesObject> {
  readonly #watches: ListWatch<KubernetesObject>[];
  readonly #indexer: Indexer<T>;
  #stopped = false;

  constructor(
    opts: {
      kc: KubeConfig;
      logger: Logger;
      labelSelector?: string;
      /** Watches only what it selects (`metadata.name=…` for one object); `list` must select the same. */
      fieldSelector?: string;
      /**
       * Indexes of the cache (`byIndex`), kept current before any `onChange` callback runs,
       * so a reconcile a change starts reads an index that already holds that change.
       */
      indexes?: Record<string, IndexFunc<T>>;
    } & (WatchScope | { scopes: readonly WatchScope[] }),
  ) {
    const scopes = 'scopes' in opts ? opts.scopes : [{ path: opts.path, list: opts.list }];
    this.#indexer = new Indexer(opts.indexes ?? {});
    this.#watches = scopes.map((scope) => this.#listWatch(opts, scope));
    if (opts.indexes)
      for (const lw of this.#watches) {
        // Registered first: ListWatch calls its callbacks in the order they were added.
        lw.on('add', (o) => this.#indexer.put(o as T));
        lw.on('update', (o) => this.#indexer.put(o as T));
        lw.on('delete', (o) => this.#indexer.delete(o as T));
      }
  }

  #listWatch(
    opts: { kc: KubeConfig; logger: Logger; labelSelector?: string; fieldSelector?: string },
    scope: WatchScope,
  ): ListWatch<KubernetesObject> {
    const watch = new Watch(opts.kc);
    // client-node ends a watch that delivered nothing for 30 s, so a quiet kind was watched
    // again twice a minute: requests for nothing. client-go's informers keep a watch 5–10
    // minutes (spread, so they do not all renew at once); so do these.
    // (`requestTimeoutMs` is public at run time; its typings call it private.)
    (watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs =
      WATCH_MIN_MS + Math.floor(Math.random() * WATCH_MIN_MS);
    const lw = new ListWatch<KubernetesObject>(
      scope.path,
      watch,
      scope.list,
      false,
      opts.labelSelector,
      opts.fieldSelector,
    );
    lw.on('error', (err) => {
      if (this.#stopped) return;
      opts.logger.debug({ err, path: scope.path }, 'watch failed; relisting');
      setTimeout(() => {
        if (!this.#stopped) lw.start().catch(() => undefined);
      }, 500).unref();
    });
    return lw;
  }

  onChange(cb: (obj: T) => void): void {
    const call = (o: KubernetesObject) => cb(o as T);
    for (const lw of this.#watches) {
      lw.on('add', call);
      lw.on('update', call);
      lw.on('delete', call);
    }
  }

  /** Resolves once the first list has filled the cache. */
  async start(): Promise<void> {
    await Promise.all(this.#watches.map((lw) => lw.start()));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#watches.map((lw) => lw.stop()));
  }

  get(name: string, namespace?: string): T | undefined {
    for (const lw of this.#watches) {
      const found = lw.get(name, namespace);
      if (found) return found as T;
    }
    return undefined;
  }

  /** The cached objects filed under `value` in the index `name` (given at construction). */
  byIndex(name: string, value: string): readonly T[] {
    return this.#indexer.get(name, value);
  }

  list(namespace?: string): readonly T[] {
    if (this.#watches.length === 1) return this.#watches[0]!.list(namespace) as readonly T[];
    return this.#watches.flatMap((lw) => lw.list(namespace)) as T[];
  }
}

/**
 * The scopes of a namespaced kind: one per namespace of `namespaces`, or one over the whole
 * cluster when it is undefined. `path` and `list` get the namespace, or undefined for all.
 */
export function scopesOf(
  namespaces: readonly string[] | undefined,
  path: (namespace?: string) => string,
  list: (namespace?: string) => ReturnType<Lister>,
): WatchScope[] {
  return namespaces === undefined
    ? [{ path: path(), list: () => list() }]
    : namespaces.map((ns) => ({ path: path(ns), list: () => list(ns) }));
}

/** `namespace/name` (or `name` for cluster-scoped objects), the key of a work queue. */
export function keyOf(obj: KubernetesObject): string {
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${obj.metadata?.name ?? ''}` : (obj.metadata?.name ?? '');
}

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** Whether an error from client-node is the apiserver's answer `code`. */
export function isStatus(err: unknown, code: number): boolean {
  return (err as { code?: number } | undefined)?.code === code;
}

/** Runs `call`, treating the apiserver's `codes` (404 by default) as success. */
export async function ignoring(codes: number[], call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    if (!codes.some((c) => isStatus(err, c))) throw err;
  }
}
