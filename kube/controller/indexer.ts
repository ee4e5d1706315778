import type { KubernetesObject } from '@kubernetes/client-node';

/** The values an object is found under in one index (client-go's `IndexFunc`). */
export type IndexFunc<T> = (obj: T) => readonly string[];

/**
 * client-go's Indexer over an informer's cache: for each named index, the objects under
 * each value, kept current by the cache's own add, update and delete events. A lookup that
 * filtered every object of a kind on every pass (a sandbox's Pods by label, a template's
 * sandboxes) becomes one map read.
 */
export class Indexer<T extends KubernetesObject> {
  readonly #funcs: ReadonlyMap<string, IndexFunc<T>>;
  /** index → value → object key → object. */
  readonly #indexes = new Map<string, Map<string, Map<string, T>>>();
  /** object key → index → the values it was filed under, to unfile it on change. */
  readonly #filed = new Map<string, Map<string, readonly string[]>>();

  constructor(funcs: Record<string, IndexFunc<T>>) {
    this.#funcs = new Map(Object.entries(funcs));
    for (const name of this.#funcs.keys()) this.#indexes.set(name, new Map());
  }

  /** Files an added or updated object under its values now. */
  put(obj: T): void {
    const key = objectKey(obj);
    this.delete(obj);
    const filed = new Map<string, readonly string[]>();
    for (const [name, fn] of this.#funcs) {
      const values = [...new Set(fn(obj))];
      filed.set(name, values);
      const index = this.#indexes.get(name)!;
      for (const v of values) {
        let objects = index.get(v);
        if (!objects) index.set(v, (objects = new Map<string, T>()));
        objects.set(key, obj);
      }
    }
    this.#filed.set(key, filed);
  }

  /** Unfiles a deleted object (or the previous version of an updated one). */
  delete(obj: T): void {
    const key = objectKey(obj);
    const filed = this.#filed.get(key);
    if (!filed) return;
    for (const [name, values] of filed) {
      const index = this.#indexes.get(name)!;
      for (const v of values) {
        const objects = index.get(v);
        objects?.delete(key);
        if (objects?.size === 0) index.delete(v);
      }
    }
    this.#filed.delete(key);
  }

  /** The objects filed under `value` in the index `name`. */
  get(name: string, value: string): T[] {
    const index = this.#indexes.get(name);
    if (!index) throw new Error(`no index named ${name}`);
    return [...(index.get(value)?.values() ?? [])];
  }
}

function objectKey(obj: KubernetesObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}
