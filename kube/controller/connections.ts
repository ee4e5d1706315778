import type { Cluster, KubeConfig } from '@kubernetes/client-node';

/** What client-node builds per request to reach the apiserver (an undici Agent). */
interface Dispatcher {
  close(): Promise<void>;
}

/** The part of client-node's KubeConfig this module replaces (a runtime method, private in its types). */
interface DispatcherFactory {
  createDispatcher(cluster: Cluster | null, agentOptions: object): Dispatcher | undefined;
  createDispatcherOptions(cluster: Cluster | null, agentOptions: object): unknown;
}

/**
 * Makes `kc` reuse its connections to the apiserver. client-node 2.x builds a new undici
 * Agent for every request, so every GET, LIST and PATCH pays a fresh TCP and TLS handshake
 * (6–8 ms here, where the request itself takes about 1 ms), and an API create that makes nine
 * requests in a row pays it nine times. One Agent per set of TLS options keeps connections
 * alive between requests; a changed client certificate or CA (rotation) gets a new Agent and
 * the old one closes once its requests, watches included, have ended.
 */
export function reuseConnections(kc: KubeConfig): KubeConfig {
  const factory = kc as unknown as DispatcherFactory;
  const create = factory.createDispatcher.bind(kc);
  let current: { key: string; dispatcher: Dispatcher | undefined } | undefined;
  factory.createDispatcher = (cluster, agentOptions) => {
    const key = JSON.stringify(
      factory.createDispatcherOptions(cluster, agentOptions),
      // Certificates and keys arrive as Buffers, re-read from their files on every request.
      function (this: Record<string, unknown>, k: string, v: unknown) {
        const raw = this[k];
        return Buffer.isBuffer(raw) ? raw.toString('base64') : v;
      },
    );
    if (current?.key === key) return current.dispatcher;
    const previous = current?.dispatcher;
    current = { key, dispatcher: create(cluster, agentOptions) };
    void previous?.close().catch(() => undefined);
    return current.dispatcher;
  };
  return kc;
}
