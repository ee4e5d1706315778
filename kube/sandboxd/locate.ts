import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { Annotations, GROUP, Labels, SandboxPod, VERSION, sandboxdToken } from '../../core/index.ts';
import { SandboxdClient } from './client.ts';
import type { SandboxdKeySource } from './key.ts';

/** sandboxd could not be addressed: no Pod, no IP yet, or no sandboxd key yet. */
/**
 * Where a Pod's sandboxd listens: the Pod's IP and sandboxd's port; undefined until the Pod
 * has one. In devnode mode (`make dev`, the tests) the address devnode wrote on the Pod (its
 * socket) comes first. Only there: anyone who may annotate a Pod could otherwise send the
 * API and the operator, with a sandbox's token, to any address.
 */
export function sandboxdAddressOf(pod: V1Pod, o: { devnode?: boolean } = {}): string | undefined {
  const recorded = o.devnode ? pod.metadata?.annotations?.[Annotations.sandboxdAddress] : undefined;
  return recorded ?? (pod.status?.podIP ? `${pod.status.podIP}:${SandboxPod.port}` : undefined);
}

export class SandboxdUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxdUnavailable';
  }
}

export interface SandboxdLocatorOptions {
  kc: KubeConfig;
  /** The per-installation key the tokens are derived from (see `sandboxdToken`). */
  key: SandboxdKeySource;
  /** How long an answer is kept; 5 s by default. */
  ttlMs?: number;
  /** devnode mode: devnode's address annotation on the Pod is honoured (see `sandboxdAddressOf`). */
  devnode?: boolean;
}

/**
 * Finds a sandbox's sandboxd: the Pod's IP on port 9000, or on devnode the address it
 * recorded on the Pod, with the token derived from the key and the Sandbox that owns the
 * Pod, so no Secret in the sandbox's namespace is read. Only a Pod whose controller
 * reference is the Sandbox's uid is the sandbox's. Answers are kept a few seconds, keyed by
 * the Sandbox's uid, so a hot invoke path costs no apiserver round trip while a re-created
 * sandbox of the same name is found afresh (a failed call drops the answer: `forget`). A
 * lookup in flight is shared: callers at once (and `prepare`'s look ahead) make one read.
 */
export class SandboxdLocator {
  readonly #core: CoreV1Api;
  readonly #custom: CustomObjectsApi;
  readonly #key: SandboxdKeySource;
  readonly #ttlMs: number;
  readonly #devnode: boolean;
  readonly #cache = new Map<string, { at: number; uid: string; client: Promise<SandboxdClient> }>();

  constructor(o: SandboxdLocatorOptions) {
    this.#core = o.kc.makeApiClient(CoreV1Api);
    this.#custom = o.kc.makeApiClient(CustomObjectsApi);
    this.#key = o.key;
    this.#ttlMs = o.ttlMs ?? 5_000;
    this.#devnode = o.devnode ?? false;
  }

  /** Where this Pod's sandboxd listens, as this locator's mode reads it (`sandboxdAddressOf`). */
  addressOf(pod: V1Pod): string | undefined {
    return sandboxdAddressOf(pod, { devnode: this.#devnode });
  }

  /** The token the sandboxd of the Sandbox `namespace/name` with this uid expects. */
  async token(namespace: string, name: string, uid: string): Promise<string> {
    return sandboxdToken(await this.#key(), { namespace, name, uid });
  }

  /**
   * The sandboxd of the Sandbox `namespace/sandbox` whose uid is `uid` (read from the Sandbox
   * when the caller has no copy). Only a Pod whose controller reference is that uid is
   * its: a Pod of the sandbox's name that is someone else's (another user's claimed warm-pool
   * member, say) is never reached, nor is its token derived. `podName`, the Pod its status
   * names, is read first: a claimed warm-pool member's Pod keeps its own name, and found by
   * name it costs one read rather than two (checked all the same: a status is no proof).
   */
  async client(
    namespace: string,
    sandbox: string,
    uid?: string,
    o: { podName?: string } = {},
  ): Promise<SandboxdClient> {
    const sandboxUid = uid ?? (await this.#uidOf(namespace, sandbox));
    return this.#lookup(namespace, sandbox, sandboxUid, o.podName || sandbox);
  }

  /**
   * Looks the sandboxd of the Sandbox `namespace/sandbox` (uid `uid`) up now, unless an answer
   * is kept or a lookup is in flight, so that the first call after the sandbox turned Running
   * finds it kept (the API calls this when its cache sees the sandbox turn Running). Proven
   * the same way as `client`'s; a failure is dropped here, and the next `client` looks again
   * and says why.
   */
  prepare(namespace: string, sandbox: string, uid: string, o: { podName?: string } = {}): void {
    this.#lookup(namespace, sandbox, uid, o.podName || sandbox).catch(() => undefined);
  }

  #lookup(namespace: string, sandbox: string, uid: string, podName: string): Promise<SandboxdClient> {
    const key = `${namespace}/${sandbox}`;
    const hit = this.#cache.get(key);
    if (hit && Date.now() - hit.at < this.#ttlMs && hit.uid === uid) return hit.client;
    const client = this.#pod(namespace, sandbox, uid, podName).then((pod) => this.forPod(pod));
    // Kept by the Sandbox's uid: a re-created sandbox of the same name is looked up afresh.
    const entry = { at: Date.now(), uid, client };
    this.#cache.set(key, entry);
    // A failed lookup is not kept (only this one: a newer may have replaced it meanwhile).
    client.catch(() => {
      if (this.#cache.get(key) === entry) this.#cache.delete(key);
    });
    return client;
  }

  /**
   * The sandboxd of a Pod the caller already holds (the operator's informer): no read, and
   * nothing kept, since the caller's cache is the newer one.
   */
  async forPod(pod: V1Pod): Promise<SandboxdClient> {
    const { name: sandbox = '', namespace = '' } = pod.metadata ?? {};
    const address = this.addressOf(pod);
    if (!address) throw new SandboxdUnavailable(`sandbox ${sandbox}'s Pod has no address yet`);
    const owner = pod.metadata?.ownerReferences?.find(
      (r) => r.controller && r.kind === 'Sandbox' && r.apiVersion.startsWith(`${GROUP}/`),
    );
    if (!owner) throw new SandboxdUnavailable(`sandbox ${sandbox}'s Pod is not owned by a Sandbox`);
    // The owner's name, not the Pod's: a claimed warm-pool member's Pod keeps its own name.
    return new SandboxdClient({ address, token: await this.token(namespace, owner.name, owner.uid) });
  }

  /**
   * The sandbox's Pod: the one named `podName` (its status's, else the sandbox's own name), or,
   * for a sandbox that claimed a warm-pool member, the member's Pod, which carries the
   * sandbox's label (a Pod cannot be renamed); either only when its controller reference is
   * the Sandbox's uid.
   */
  async #pod(namespace: string, sandbox: string, uid: string, podName: string): Promise<V1Pod> {
    const ours = (p: V1Pod | undefined) =>
      !!p?.metadata?.ownerReferences?.some((r) => r.controller && r.kind === 'Sandbox' && r.uid === uid);
    const named = await this.#core.readNamespacedPod({ name: podName, namespace }).catch((err: unknown) => {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    });
    if (ours(named)) return named!;
    const labelled = (
      await this.#core.listNamespacedPod({ namespace, labelSelector: `${Labels.sandbox}=${sandbox}` })
    ).items.filter(ours);
    const pod = labelled.find((p) => !p.metadata?.deletionTimestamp) ?? labelled[0];
    if (!pod) throw new SandboxdUnavailable(`sandbox ${sandbox} has no Pod of its own`);
    return pod;
  }

  /** The uid of the Sandbox `namespace/name`; unavailable when there is none. */
  async #uidOf(namespace: string, name: string): Promise<string> {
    const sandbox = (await this.#custom
      .getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: 'sandboxes', namespace, name })
      .catch((err: unknown) => {
        if ((err as { code?: number }).code === 404) return undefined;
        throw err;
      })) as { metadata?: { uid?: string } } | undefined;
    const uid = sandbox?.metadata?.uid;
    if (!uid) throw new SandboxdUnavailable(`sandbox ${name} not found`);
    return uid;
  }

  /** Drops a cached address, after a call to it failed. */
  forget(namespace: string, sandbox: string): void {
    this.#cache.delete(`${namespace}/${sandbox}`);
  }
}
