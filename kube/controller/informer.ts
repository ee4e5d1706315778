import { ListWatch, Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';

/** The shortest a watch is kept open when nothing happens (at most twice that). */
const WATCH_MIN_MS = 5 * 60_000;

type Lister = () => Promise<{ items: KubernetesObject[]; metadata?: { resourceVersion?: string } }>;

/**
 * A list+watch cache of one kind. client-node's ListWatch relists on a closed watch but
 * stops on an error, so this restarts it after a short pause. Each add, update or delete
 * calls the `onChange` callbacks (a controller enqueues keys there); reads come from the cache.
 */
export class Informer<T extends KubernetesObject> {
  readonly #watch: ListWatch<KubernetesObject>;
  #stopped = false;

  constructor(opts: {
    kc: KubeConfig;
    path: string;
    list: Lister;
    logger: Logger;
    labelSelector?: string;
    /** Watches only what it selects (`metadata.name=…` for one object); `list` must select the same. */
    fieldSelector?: string;
  }) {
    const watch = new Watch(opts.kc);
    // client-node ends a watch that delivered nothing for 30 s, so a quiet kind was watched
    // again twice a minute: requests for nothing. client-go's informers keep a watch 5–10
    // minutes (spread, so they do not all renew at once); so do these.
    // (`requestTimeoutMs` is public at run time; its typings call it private.)
    (watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs =
      WATCH_MIN_MS + Math.floor(Math.random() * WATCH_MIN_MS);
    this.#watch = new ListWatch<KubernetesObject>(
      opts.path,
      watch,
      opts.list,
      false,
      opts.labelSelector,
      opts.fieldSelector,
    );
    this.#watch.on('error', (err) => {
      if (this.#stopped) return;
      opts.logger.debug({ err, path: opts.path }, 'watch failed; relisting');
      setTimeout(() => {
        if (!this.#stopped) this.#watch.start().catch(() => undefined);
      }, 500).unref();
    });
  }

  onChange(cb: (obj: T) => void): void {
    const call = (o: KubernetesObject) => cb(o as T);
    this.#watch.on('add', call);
    this.#watch.on('update', call);
    this.#watch.on('delete', call);
  }

  /** Resolves once the first list has filled the cache. */
  start(): Promise<void> {
    return this.#watch.start();
  }

  stop(): Promise<void> {
    this.#stopped = true;
    return this.#watch.stop();
  }

  get(name: string, namespace?: string): T | undefined {
    return this.#watch.get(name, namespace) as T | undefined;
  }

  list(namespace?: string): readonly T[] {
    return this.#watch.list(namespace) as readonly T[];
  }
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
