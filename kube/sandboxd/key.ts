import { randomBytes } from 'node:crypto';
import { CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { SandboxdKey } from '../../core/index.ts';
import { isStatus } from '../controller/index.ts';
import { SandboxdUnavailable } from './locate.ts';

/** Where a locator gets the key: the operator's is fixed at start-up, the API's is re-read. */
export type SandboxdKeySource = () => Promise<Buffer>;

/**
 * The `svc-sandboxd-key` Secret in the service's namespace. `read` keeps the key `ttlMs`
 * (a rotated key reaches the API within that) and throws SandboxdUnavailable while the
 * Secret is missing; `ensure` is the operator's start-up: read it, else create it.
 */
export class SandboxdKeySecret {
  readonly #core: CoreV1Api;
  readonly #namespace: string;
  readonly #ttlMs: number;
  #cached?: { at: number; key: Buffer };

  constructor(o: { kc: KubeConfig; namespace: string; ttlMs?: number }) {
    this.#core = o.kc.makeApiClient(CoreV1Api);
    this.#namespace = o.namespace;
    this.#ttlMs = o.ttlMs ?? 60_000;
  }

  read: SandboxdKeySource = async () => {
    if (this.#cached && Date.now() - this.#cached.at < this.#ttlMs) return this.#cached.key;
    const key = await this.#get();
    if (!key) {
      throw new SandboxdUnavailable(
        `the sandboxd key Secret ${this.#namespace}/${SandboxdKey.secretName} does not exist yet (the operator creates it when it starts)`,
      );
    }
    return key;
  };

  /** The key, created when missing; a replica that loses the race to create it reads the winner's. */
  async ensure(): Promise<{ key: Buffer; created: boolean }> {
    const found = await this.#get();
    if (found) return { key: found, created: false };
    const body: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: SandboxdKey.secretName, namespace: this.#namespace },
      type: 'Opaque',
      data: { [SandboxdKey.dataKey]: randomBytes(SandboxdKey.bytes).toString('base64') },
    };
    try {
      const created = await this.#core.createNamespacedSecret({ namespace: this.#namespace, body });
      return { key: this.#remember(created), created: true };
    } catch (err) {
      if (!isStatus(err, 409)) throw err;
    }
    const raced = await this.#get();
    if (!raced)
      throw new Error(`the sandboxd key Secret ${SandboxdKey.secretName} vanished while being created`);
    return { key: raced, created: false };
  }

  async #get(): Promise<Buffer | undefined> {
    try {
      const secret = await this.#core.readNamespacedSecret({
        name: SandboxdKey.secretName,
        namespace: this.#namespace,
      });
      return this.#remember(secret);
    } catch (err) {
      if (isStatus(err, 404)) return undefined;
      throw err;
    }
  }

  #remember(secret: V1Secret): Buffer {
    const encoded = secret.data?.[SandboxdKey.dataKey];
    const key = encoded ? Buffer.from(encoded, 'base64') : undefined;
    if (!key?.length) {
      throw new SandboxdUnavailable(
        `the sandboxd key Secret ${this.#namespace}/${SandboxdKey.secretName} has no "${SandboxdKey.dataKey}"`,
      );
    }
    this.#cached = { at: Date.now(), key };
    return key;
  }
}
