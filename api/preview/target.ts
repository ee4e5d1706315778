import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { Annotations, forwardedServiceName } from '../../core/index.ts';

/**
 * Where the preview proxy sends a forwarded port's traffic: the port's Service by its
 * cluster DNS name, or, on devnode (dev and tests), the host address devnode recorded on it.
 */
export class PreviewTargets {
  readonly #core: CoreV1Api;
  readonly #cache = new Map<string, { at: number; base: string }>();

  constructor(kc: KubeConfig) {
    this.#core = kc.makeApiClient(CoreV1Api);
  }

  async base(namespace: string, sandbox: string, port: number): Promise<string> {
    const name = forwardedServiceName(sandbox, port);
    const key = `${namespace}/${name}`;
    const hit = this.#cache.get(key);
    if (hit && Date.now() - hit.at < 5_000) return hit.base;
    const service = await this.#core.readNamespacedService({ name, namespace });
    const recorded = parseHostAddress(service.metadata?.annotations?.[Annotations.hostAddress] ?? '', port);
    const base = recorded ? `http://${recorded}` : `http://${name}.${namespace}.svc.cluster.local:${port}`;
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
