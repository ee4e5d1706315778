import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { Annotations, SandboxPod, sandboxdSecretName } from '../../core/index.ts';
import { SandboxdClient } from './client.ts';

/** sandboxd could not be addressed: no Pod, no IP yet, or no token Secret. */
export class SandboxdUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxdUnavailable';
  }
}

/**
 * Finds a sandbox's sandboxd: the Pod's IP on port 9000, or on devnode the address it
 * recorded on the Pod, with the token from the sandbox's Secret. Answers are kept a few
 * seconds, keyed by the Pod's uid, so a hot invoke path costs no apiserver round trip while
 * a recreated Pod is found at once.
 */
export class SandboxdLocator {
  readonly #core: CoreV1Api;
  readonly #ttlMs: number;
  readonly #cache = new Map<string, { at: number; uid: string; client: SandboxdClient }>();

  constructor(kc: KubeConfig, ttlMs = 5_000) {
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#ttlMs = ttlMs;
  }

  async client(namespace: string, sandbox: string, podUid?: string): Promise<SandboxdClient> {
    const key = `${namespace}/${sandbox}`;
    const hit = this.#cache.get(key);
    if (hit && Date.now() - hit.at < this.#ttlMs && (podUid === undefined || hit.uid === podUid))
      return hit.client;
    const pod = await this.#core.readNamespacedPod({ name: sandbox, namespace }).catch((err: unknown) => {
      if ((err as { code?: number }).code === 404)
        throw new SandboxdUnavailable(`sandbox ${sandbox} has no Pod`);
      throw err;
    });
    const address =
      pod.metadata?.annotations?.[Annotations.sandboxdAddress] ??
      (pod.status?.podIP ? `${pod.status.podIP}:${SandboxPod.port}` : undefined);
    if (!address) throw new SandboxdUnavailable(`sandbox ${sandbox}'s Pod has no address yet`);
    const secret = await this.#core
      .readNamespacedSecret({ name: sandboxdSecretName(sandbox), namespace })
      .catch((err: unknown) => {
        if ((err as { code?: number }).code === 404)
          throw new SandboxdUnavailable(`sandbox ${sandbox} has no sandboxd token`);
        throw err;
      });
    const encoded = secret.data?.[SandboxPod.tokenKey];
    if (!encoded) throw new SandboxdUnavailable(`sandbox ${sandbox}'s token Secret is empty`);
    const client = new SandboxdClient({ address, token: Buffer.from(encoded, 'base64').toString().trim() });
    this.#cache.set(key, { at: Date.now(), uid: pod.metadata?.uid ?? '', client });
    return client;
  }

  /** Drops a cached address, after a call to it failed. */
  forget(namespace: string, sandbox: string): void {
    this.#cache.delete(`${namespace}/${sandbox}`);
  }
}
