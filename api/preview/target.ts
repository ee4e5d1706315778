import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { Annotations, forwardedServiceName } from '../../core/index.ts';

/**
 * Where the preview proxy sends a forwarded port's traffic: the port's Service, by the
 * ClusterIP the apiserver assigned it (from the Service range: no annotation, no DNS name
 * and no ExternalName can point it elsewhere). In devnode mode (`make dev`, the tests), and
 * only there, the host address devnode recorded on the Service: honoured in a cluster, that
 * annotation would let anyone who may annotate a Service send the API to any address.
 */
export class PreviewTargets {
  readonly #core: CoreV1Api;
  readonly #devnode: boolean;
  readonly #cache = new Map<string, { at: number; base: string }>();

  constructor(kc: KubeConfig, o: { devnode?: boolean } = {}) {
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#devnode = o.devnode ?? false;
  }

  async base(namespace: string, sandbox: string, port: number): Promise<string> {
    const name = forwardedServiceName(sandbox, port);
    const key = `${namespace}/${name}`;
    const hit = this.#cache.get(key);
    if (hit && Date.now() - hit.at < 5_000) return hit.base;
    const service = await this.#core.readNamespacedService({ name, namespace });
    const recorded = this.#devnode
      ? parseHostAddress(service.metadata?.annotations?.[Annotations.hostAddress] ?? '', port)
      : undefined;
    const ip = service.spec?.clusterIP;
    let base: string;
    if (recorded) base = `http://${recorded}`;
    else if (service.spec?.type !== 'ExternalName' && ip && ip !== 'None')
      base = `http://${ip.includes(':') ? `[${ip}]` : ip}:${port}`;
    else throw new Error(`Service ${namespace}/${name} has no cluster IP`);
    this.#cache.set(key, { at: Date.now(), base });
    return base;
  }
}

export function parseHostAddress(annotation: string, port: number): string | undefined {
  for (const entry of annotation.split(',')) {
    const [servicePort, address] = entry.trim().split('=');
    if (address && Number(servicePort) === port) return address;
  }
  return undefined;
}
