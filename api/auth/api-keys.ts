import { createHash, randomBytes } from 'node:crypto';
import { CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';

export { ApiKeyRecord } from '../../core/index.ts';
import { ApiKeyRecord } from '../../core/index.ts';

export interface ApiKeyStoreOptions {
  kc: KubeConfig;
  namespace: string;
  secretName?: string;
  /** How long a read of the Secret is reused; a revoked key stops working within it. */
  cacheMs?: number;
}

const hash = (key: string) => createHash('sha256').update(key).digest('hex');

/**
 * API keys kept hashed in one Secret (`svc-api-keys`): only SHA-256 digests are stored, so
 * reading the Secret never reveals a key. Keys carry 256 bits of randomness, which is why
 * a fast hash is enough. Lookups hit an in-memory copy refreshed at most every `cacheMs`.
 */
export class ApiKeyStore {
  readonly #core: CoreV1Api;
  readonly #namespace: string;
  readonly #name: string;
  readonly #cacheMs: number;
  #cache: { at: number; records: Map<string, ApiKeyRecord> } | undefined;
  #loading: Promise<Map<string, ApiKeyRecord>> | undefined;

  constructor(opts: ApiKeyStoreOptions) {
    this.#core = opts.kc.makeApiClient(CoreV1Api);
    this.#namespace = opts.namespace;
    this.#name = opts.secretName ?? 'svc-api-keys';
    this.#cacheMs = opts.cacheMs ?? 1000;
  }

  /** The record for a presented key, or undefined when it is unknown or revoked. */
  async lookup(key: string): Promise<ApiKeyRecord | undefined> {
    return (await this.#records()).get(hash(key));
  }

  async list(): Promise<ApiKeyRecord[]> {
    return [...(await this.#records(true)).values()];
  }

  /** Creates a key; the plaintext is returned once and never stored. */
  async create(input: {
    user: string;
    groups?: string[];
    admin?: boolean;
  }): Promise<{ key: string; record: ApiKeyRecord }> {
    const key = `svc_${randomBytes(32).toString('base64url')}`;
    const record = ApiKeyRecord.parse({
      id: randomBytes(6).toString('hex'),
      user: input.user,
      groups: input.groups ?? [],
      admin: input.admin ?? false,
      createdAt: new Date().toISOString(),
    });
    await this.#update((data) => ({
      ...data,
      [hash(key)]: Buffer.from(JSON.stringify(record)).toString('base64'),
    }));
    return { key, record };
  }

  /** Removes the key with this id; false when there was none. */
  async revoke(id: string): Promise<boolean> {
    let found = false;
    await this.#update((data) => {
      const kept = Object.entries(data).filter(([, v]) => {
        const match = parseRecord(v)?.id === id;
        found ||= match;
        return !match;
      });
      return Object.fromEntries(kept);
    });
    return found;
  }

  async #records(fresh = false): Promise<Map<string, ApiKeyRecord>> {
    if (!fresh && this.#cache && Date.now() - this.#cache.at < this.#cacheMs) return this.#cache.records;
    this.#loading ??= this.#load().finally(() => (this.#loading = undefined));
    return this.#loading;
  }

  async #load(): Promise<Map<string, ApiKeyRecord>> {
    const secret = await this.#read();
    const records = new Map<string, ApiKeyRecord>();
    for (const [digest, value] of Object.entries(secret?.data ?? {})) {
      const record = parseRecord(value);
      if (record) records.set(digest, record);
    }
    this.#cache = { at: Date.now(), records };
    return records;
  }

  async #read(): Promise<V1Secret | undefined> {
    try {
      return await this.#core.readNamespacedSecret({ name: this.#name, namespace: this.#namespace });
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
  }

  /** Read-modify-write with the resourceVersion as guard; retried on a conflict. */
  async #update(change: (data: Record<string, string>) => Record<string, string>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.#read();
      const data = change({ ...(current?.data ?? {}) });
      try {
        if (current) {
          await this.#core.replaceNamespacedSecret({
            name: this.#name,
            namespace: this.#namespace,
            body: { ...current, data },
          });
        } else {
          await this.#core.createNamespacedSecret({
            namespace: this.#namespace,
            body: { metadata: { name: this.#name, labels: { 'app.kubernetes.io/part-of': 'svc' } }, data },
          });
        }
        this.#cache = undefined;
        return;
      } catch (err) {
        if ((err as { code?: number }).code !== 409 || attempt >= 5) throw err;
      }
    }
  }
}

function parseRecord(value: string): ApiKeyRecord | undefined {
  try {
    return ApiKeyRecord.parse(JSON.parse(Buffer.from(value, 'base64').toString()));
  } catch {
    return undefined;
  }
}
