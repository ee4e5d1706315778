import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type V1Pod,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { GROUP, Labels, VERSION, type Sandbox, type SandboxTemplateSpec } from '../core/index.ts';
import { Informer, scopesOf } from '../kube/index.ts';
import type { Asker } from './decide.ts';

type Template = KubernetesObject & { spec?: SandboxTemplateSpec };

/**
 * Who is asking, by source address: sandbox Pods (by their `svc.io/sandbox` label) indexed
 * by Pod IP, their Sandboxes and both template kinds. `namespaces` limits the namespaced
 * kinds to a watch in each (the chart's sandboxNamespaces, where the gateway is granted Pods
 * and Events); unset: one watch over the cluster each. A client cannot name its sandbox; its
 * address does, so one sandbox cannot borrow another's list.
 */
export class Identities {
  readonly #pods: Informer<V1Pod>;
  readonly #sandboxes: Informer<Sandbox & KubernetesObject>;
  readonly #templates: Informer<Template>;
  readonly #clusterTemplates: Informer<Template>;

  constructor(kc: KubeConfig, logger: Logger, namespaces?: readonly string[]) {
    const core = kc.makeApiClient(CoreV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const labelSelector = Labels.sandbox;
    this.#pods = new Informer<V1Pod>({
      kc,
      logger,
      labelSelector,
      indexes: { ip: (pod) => (pod.status?.podIP ? [pod.status.podIP] : []) },
      scopes: scopesOf(
        namespaces,
        (ns) => (ns ? `/api/v1/namespaces/${ns}/pods` : '/api/v1/pods'),
        (ns) =>
          ns
            ? core.listNamespacedPod({ namespace: ns, labelSelector })
            : core.listPodForAllNamespaces({ labelSelector }),
      ),
    });
    const ours = <T extends KubernetesObject>(plural: string, namespaced: boolean) => {
      const base = `/apis/${GROUP}/${VERSION}`;
      return new Informer<T>({
        kc,
        logger,
        scopes: scopesOf(
          namespaced ? namespaces : undefined,
          (ns) => (ns ? `${base}/namespaces/${ns}/${plural}` : `${base}/${plural}`),
          async (ns) =>
            (ns
              ? await custom.listNamespacedCustomObject({
                  group: GROUP,
                  version: VERSION,
                  namespace: ns,
                  plural,
                })
              : await custom.listClusterCustomObject({
                  group: GROUP,
                  version: VERSION,
                  plural,
                })) as KubernetesListObject<KubernetesObject>,
        ),
      });
    };
    this.#sandboxes = ours('sandboxes', true);
    this.#templates = ours('sandboxtemplates', true);
    this.#clusterTemplates = ours('clustersandboxtemplates', false);
  }

  async start(): Promise<void> {
    await Promise.all(
      [this.#pods, this.#sandboxes, this.#templates, this.#clusterTemplates].map((i) => i.start()),
    );
  }

  async stop(): Promise<void> {
    await Promise.all(
      [this.#pods, this.#sandboxes, this.#templates, this.#clusterTemplates].map((i) => i.stop()),
    );
  }

  /**
   * The sandbox whose running Pod has `ip`, with its effective list; undefined when no
   * sandbox Pod has it (or two do, which a Pod that ended and one that reuses its address
   * can briefly: then neither is trusted).
   */
  lookup(ip: string): Asker | undefined {
    const pods = this.#pods
      .byIndex('ip', unmapped(ip))
      .filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
    if (pods.length !== 1) return undefined;
    const pod = pods[0]!;
    const namespace = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.labels?.[Labels.sandbox];
    if (!name) return undefined;
    const sandbox = this.#sandboxes.get(name, namespace);
    if (!sandbox) return undefined;
    const ref = sandbox.spec.templateRef;
    const cluster = ref.kind !== 'SandboxTemplate';
    const template = cluster
      ? this.#clusterTemplates.get(ref.name)
      : this.#templates.get(ref.name, namespace);
    const network = template?.spec?.network;
    const allowedHosts =
      network?.egress === 'allowlist'
        ? (sandbox.spec.network?.allowedHosts ?? network.allowedHosts ?? [])
        : [];
    return {
      namespace,
      sandbox: name,
      template: `${cluster ? 'ClusterSandboxTemplate' : 'SandboxTemplate'}/${ref.name}`,
      allowedHosts,
      ...(sandbox.metadata.uid ? { uid: sandbox.metadata.uid } : {}),
      ...(sandbox.spec.createdBy ? { owner: sandbox.spec.createdBy } : {}),
    };
  }
}

/** `::ffff:10.0.0.7`, how a dual-stack socket shows an IPv4 peer, is `10.0.0.7`. */
const unmapped = (ip: string) => (ip.startsWith('::ffff:') ? ip.slice(7) : ip);
