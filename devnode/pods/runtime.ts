import {
  CoreV1Api,
  type KubeConfig,
  type V1Pod,
  type V1PersistentVolumeClaim,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ignoring, splitKey, type Informer } from '../../kube/index.ts';
import type { Layout } from '../options.ts';
import { PodSandbox } from './pod.ts';

export interface RuntimeDeps {
  kc: KubeConfig;
  logger: Logger;
  layout: Layout;
  nodeName: string;
  pods: Informer<V1Pod>;
  claims: Informer<V1PersistentVolumeClaim>;
  sandboxdCommand: string[];
}

/**
 * The kubelet and the scheduler of one machine: binds pending Pods to this node once
 * their claims are bound, runs the Pods bound here, and stops a deleted Pod (grace
 * period, then SIGKILL) before removing it for good.
 */
export class PodRuntime {
  readonly #d: RuntimeDeps;
  readonly #core: CoreV1Api;
  readonly #running = new Map<string, PodSandbox>();
  #nextIp = 2;

  constructor(deps: RuntimeDeps) {
    this.#d = deps;
    this.#core = deps.kc.makeApiClient(CoreV1Api);
  }

  /** Running Pods, for Services. */
  sandboxes(): PodSandbox[] {
    return [...this.#running.values()];
  }

  /** Whether a running Pod mounts the claim (the provisioner keeps its folder until not). */
  claimInUse(namespace: string, claim: string): boolean {
    return this.#d.pods
      .list(namespace)
      .some(
        (p) =>
          this.#running.has(`${namespace}/${p.metadata?.name}`) &&
          (p.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === claim),
      );
  }

  reconcile = async (key: string): Promise<number | void> => {
    const { namespace, name } = splitKey(key);
    const pod = this.#d.pods.get(name, namespace);
    const current = this.#running.get(key);
    if (current && (!pod || pod.metadata?.uid !== current.uid || pod.metadata?.deletionTimestamp)) {
      const grace =
        pod?.metadata?.deletionGracePeriodSeconds ?? pod?.spec?.terminationGracePeriodSeconds ?? 30;
      await current.stop(pod?.metadata?.uid === current.uid ? grace : 1);
      this.#running.delete(key);
      this.#d.logger.info({ pod: key }, 'pod stopped');
    }
    if (!pod) return;
    if (pod.metadata?.deletionTimestamp) {
      if (pod.spec?.nodeName === this.#d.nodeName)
        await ignoring([404, 409], () =>
          this.#core.deleteNamespacedPod({
            name,
            namespace,
            gracePeriodSeconds: 0,
            body: { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata!.uid } },
          }),
        );
      return;
    }
    if (!pod.spec?.nodeName) return this.#bind(pod);
    if (pod.spec.nodeName !== this.#d.nodeName || this.#running.has(key)) return;
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return;
    const sandbox = new PodSandbox(pod, {
      core: this.#core,
      logger: this.#d.logger,
      podDir: this.#d.layout.pod(pod.metadata!.uid!),
      podIP: `10.88.${Math.floor(this.#nextIp / 250)}.${(this.#nextIp++ % 250) + 2}`,
      sandboxdCommand: this.#d.sandboxdCommand,
    });
    this.#running.set(key, sandbox);
    this.#d.logger.info({ pod: key }, 'pod starting');
    void sandbox.start();
  };

  /** Binds a Pod to this node once every claim it mounts is Bound (volume binding waits too). */
  async #bind(pod: V1Pod): Promise<number | void> {
    const { namespace, name } = pod.metadata as { namespace: string; name: string };
    for (const v of pod.spec?.volumes ?? []) {
      const claim =
        v.persistentVolumeClaim && this.#d.claims.get(v.persistentVolumeClaim.claimName, namespace);
      if (v.persistentVolumeClaim && claim?.status?.phase !== 'Bound') return 500;
    }
    await ignoring([409], () =>
      this.#core.createNamespacedPodBinding({
        name,
        namespace,
        body: {
          metadata: { name, namespace },
          target: { apiVersion: 'v1', kind: 'Node', name: this.#d.nodeName },
        },
      }),
    );
  }

  /** Stops every Pod (devnode shutting down); their objects stay for the next start. */
  async stop(): Promise<void> {
    await Promise.all([...this.#running.values()].map((s) => s.stop(5)));
    this.#running.clear();
  }
}
