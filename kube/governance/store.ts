import { CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Informer } from '../controller/index.ts';

/** A stored policy that does not parse: enforcement stops rather than guess. */
export class PolicyMalformedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyMalformedError';
  }
}

/** Key of the cluster default in the `svc-governance` ConfigMap; overrides are `namespace.<ns>`. */
export const CLUSTER_KEY = 'cluster';
const namespaceKey = (ns: string) => `namespace.${ns}`;

export interface StoredPolicies<P> {
  cluster?: P;
  namespaces: Record<string, P>;
}

/**
 * Governance policies in the ConfigMap `svc-governance` of the service's namespace, one
 * JSON document per key. Writes are read-modify-write guarded by the resourceVersion, so two
 * admins (or replicas) never overwrite each other. A stored document that does not parse is
 * an error, loudly: it is never read as "no limits".
 *
 * A long-running process calls `start`: the store then follows the ConfigMap with a watch, so
 * a hot path's read (`maxAgeMs` > 0: every invoke, every reconcile) is the policy in force
 * without a GET. A write through this store, or a fresh read (`maxAgeMs` 0: create and
 * configure, which must see a PUT made through another replica a moment ago), is visible to
 * the next cached read at once, before the watch echoes it. `onChange` tells the operator to
 * re-apply a changed policy to running sandboxes.
 */
export class PolicyStore<P> {
  readonly #kc: KubeConfig;
  readonly #core: CoreV1Api;
  readonly #namespace: string;
  readonly #parse: (raw: unknown) => P;
  readonly #name = 'svc-governance';
  /** The last ConfigMap read, for callers on a hot path that accept a little staleness (unwatched). */
  #recent: { at: number; configMap: V1ConfigMap | undefined } | undefined;
  /** Bumped by every write, so a read that raced one is not remembered. */
  #writes = 0;
  /** The watch of the ConfigMap, once started. */
  #watch: Informer<V1ConfigMap> | undefined;
  /** A newer version than the watch shows (this store's write or a fresh read), until it catches up. */
  #latest: V1ConfigMap | undefined;
  readonly #listeners: (() => void)[] = [];

  constructor(kc: KubeConfig, namespace: string, parse: (raw: unknown) => P) {
    this.#kc = kc;
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#namespace = namespace;
    this.#parse = parse;
  }

  /** Follows the ConfigMap with a watch; resolves once its current state is known. */
  async start(logger: Logger): Promise<void> {
    const fieldSelector = `metadata.name=${this.#name}`;
    const watch = new Informer<V1ConfigMap>({
      kc: this.#kc,
      logger,
      path: `/api/v1/namespaces/${this.#namespace}/configmaps`,
      fieldSelector,
      list: () => this.#core.listNamespacedConfigMap({ namespace: this.#namespace, fieldSelector }),
    });
    watch.onChange(() => {
      const seen = watch.get(this.#name, this.#namespace);
      if (!seen || !newer(this.#latest, seen)) this.#latest = undefined;
      for (const listener of this.#listeners) listener();
    });
    await watch.start();
    this.#watch = watch;
  }

  async stop(): Promise<void> {
    await this.#watch?.stop();
    this.#watch = undefined;
  }

  /** Called after every change of the stored policies seen by the watch (any writer). */
  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  async read(): Promise<StoredPolicies<P>> {
    const data = (await this.#get())?.data ?? {};
    const result: StoredPolicies<P> = { namespaces: {} };
    for (const [key, value] of Object.entries(data)) {
      const policy = this.#decode(key, value);
      if (key === CLUSTER_KEY) result.cluster = policy;
      else if (key.startsWith('namespace.')) result.namespaces[key.slice('namespace.'.length)] = policy;
    }
    return result;
  }

  /**
   * The cluster default and the override of `namespace`, for resolution. `maxAgeMs` 0 reads
   * the ConfigMap afresh. Above 0 a hot path takes the watched state (or, unwatched, a read
   * that recent; this store's own writes drop it).
   */
  async forNamespace(namespace: string, maxAgeMs = 0): Promise<{ cluster?: P; namespace?: P }> {
    if (maxAgeMs > 0 && this.#watch) return this.cached(namespace);
    const fresh = maxAgeMs > 0 && this.#recent && Date.now() - this.#recent.at < maxAgeMs;
    return this.#pick(fresh ? this.#recent!.configMap : await this.#get(), namespace);
  }

  /** Like `forNamespace`, from what this store has already seen (the watch, or its last read). */
  cached(namespace: string): { cluster?: P; namespace?: P } {
    return this.#pick(this.#watch ? this.#watched() : this.#recent?.configMap, namespace);
  }

  #pick(configMap: V1ConfigMap | undefined, namespace: string): { cluster?: P; namespace?: P } {
    const data = configMap?.data ?? {};
    const pick = (key: string) => (data[key] === undefined ? undefined : this.#decode(key, data[key]));
    return { cluster: pick(CLUSTER_KEY), namespace: pick(namespaceKey(namespace)) };
  }

  async put(policy: P, namespace?: string): Promise<void> {
    const key = namespace === undefined ? CLUSTER_KEY : namespaceKey(namespace);
    await this.#update((data) => ({ ...data, [key]: JSON.stringify(policy) }));
  }

  /** Removes a namespace override; false when there was none. */
  async remove(namespace: string): Promise<boolean> {
    let found = false;
    await this.#update((data) => {
      const { [namespaceKey(namespace)]: removed, ...rest } = data;
      found = removed !== undefined;
      return rest;
    });
    return found;
  }

  #decode(key: string, value: string): P {
    try {
      return this.#parse(JSON.parse(value));
    } catch (err) {
      throw new PolicyMalformedError(
        `the stored governance policy "${key}" in ConfigMap ${this.#namespace}/${this.#name} is malformed (${(err as Error).message.split('\n')[0]}); fix or replace it`,
      );
    }
  }

  /** The watched ConfigMap, or a later version this store has seen that the watch has not shown yet. */
  #watched(): V1ConfigMap | undefined {
    const seen = this.#watch!.get(this.#name, this.#namespace);
    return this.#latest && (!seen || newer(this.#latest, seen)) ? this.#latest : seen;
  }

  /** Remembers `configMap` as the latest version when the watch shows an older one. */
  #saw(configMap: V1ConfigMap | undefined): void {
    if (!this.#watch || !configMap) return;
    const seen = this.#watch.get(this.#name, this.#namespace);
    if ((!seen || newer(configMap, seen)) && (!this.#latest || newer(configMap, this.#latest)))
      this.#latest = configMap;
  }

  async #get(): Promise<V1ConfigMap | undefined> {
    const at = Date.now();
    const writes = this.#writes;
    let configMap: V1ConfigMap | undefined;
    try {
      configMap = await this.#core.readNamespacedConfigMap({ name: this.#name, namespace: this.#namespace });
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
    if (writes === this.#writes) this.#recent = { at, configMap };
    this.#saw(configMap);
    return configMap;
  }

  async #update(change: (data: Record<string, string>) => Record<string, string>): Promise<void> {
    this.#writes++;
    this.#recent = undefined;
    for (let attempt = 0; ; attempt++) {
      const current = await this.#get();
      const data = change({ ...(current?.data ?? {}) });
      try {
        const written = current
          ? await this.#core.replaceNamespacedConfigMap({
              name: this.#name,
              namespace: this.#namespace,
              body: { ...current, data },
            })
          : await this.#core.createNamespacedConfigMap({
              namespace: this.#namespace,
              body: { metadata: { name: this.#name, labels: { 'app.kubernetes.io/part-of': 'svc' } }, data },
            });
        this.#writes++;
        this.#recent = undefined;
        this.#saw(written);
        return;
      } catch (err) {
        if ((err as { code?: number }).code !== 409 || attempt >= 8) throw err;
      }
    }
  }
}

/**
 * Whether `a` is a later version of the ConfigMap than `b`. resourceVersions are etcd
 * revisions, increasing integers; one that is not a number is never taken as newer.
 */
function newer(a: V1ConfigMap | undefined, b: V1ConfigMap): boolean {
  return Number(a?.metadata?.resourceVersion) > Number(b.metadata?.resourceVersion); // NaN: false
}
