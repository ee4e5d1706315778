import { createServer, type Server, type Socket } from 'node:net';
import { CoreV1Api, type KubeConfig, type V1Service } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Annotations } from '../../core/index.ts';
import { ignoring, mergePatch, splitKey, type Informer } from '../../kube/index.ts';
import type { PodSandbox } from '../pods/index.ts';

export interface ServiceProxyDeps {
  kc: KubeConfig;
  logger: Logger;
  services: Informer<V1Service>;
  /** Pods running on devnode now. */
  sandboxes: () => PodSandbox[];
}

/**
 * kube-proxy for one machine: each port of a ClusterIP Service gets a listener on
 * 127.0.0.1, recorded on the Service; a connection is joined, through the port tunnel of
 * the selected Pod's sandboxd, to the target port inside that Pod's network namespace.
 */
export class ServiceProxy {
  readonly #d: ServiceProxyDeps;
  readonly #core: CoreV1Api;
  readonly #listeners = new Map<string, { uid: string; servers: Map<number, Server> }>();

  constructor(deps: ServiceProxyDeps) {
    this.#d = deps;
    this.#core = deps.kc.makeApiClient(CoreV1Api);
  }

  reconcile = async (key: string): Promise<void> => {
    const { namespace, name } = splitKey(key);
    const service = this.#d.services.get(name, namespace);
    const current = this.#listeners.get(key);
    if (current && (!service || service.metadata?.uid !== current.uid)) {
      current.servers.forEach((s) => s.close());
      this.#listeners.delete(key);
    }
    if (!service?.spec?.selector || service.metadata?.deletionTimestamp) return;
    const entry = this.#listeners.get(key) ?? {
      uid: service.metadata!.uid!,
      servers: new Map<number, Server>(),
    };
    this.#listeners.set(key, entry);
    for (const p of service.spec.ports ?? []) {
      if (entry.servers.has(p.port)) continue;
      const target =
        typeof p.targetPort === 'number' ? p.targetPort : Number(p.targetPort ?? p.port) || p.port;
      const server = createServer((socket) => this.#join(service, target, socket));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      entry.servers.set(p.port, server);
    }
    const recorded = [...entry.servers].map(
      ([port, s]) => `${port}=127.0.0.1:${(s.address() as { port: number }).port}`,
    );
    const value = recorded.join(',');
    if (service.metadata?.annotations?.[Annotations.hostAddress] !== value) {
      await ignoring([404], () =>
        this.#core.patchNamespacedService(
          { name, namespace, body: { metadata: { annotations: { [Annotations.hostAddress]: value } } } },
          mergePatch,
        ),
      );
    }
  };

  #join(service: V1Service, port: number, socket: Socket): void {
    const selector = service.spec!.selector!;
    const pod = this.#d
      .sandboxes()
      .find(
        (s) =>
          s.namespace === service.metadata!.namespace &&
          s.sandboxd &&
          Object.entries(selector).every(([k, v]) => s.labels[k] === v),
      );
    if (!pod?.sandboxd) {
      socket.destroy();
      return;
    }
    pod.sandboxd.tunnel(port).then(
      (upstream) => {
        upstream.pipe(socket);
        socket.pipe(upstream);
        upstream.on('error', () => socket.destroy());
        socket.on('error', () => upstream.destroy());
        upstream.on('close', () => socket.destroy());
        socket.on('close', () => upstream.destroy());
      },
      () => socket.destroy(),
    );
  }

  stop(): void {
    for (const e of this.#listeners.values()) e.servers.forEach((s) => s.close());
    this.#listeners.clear();
  }
}
