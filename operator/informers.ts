import {
  CoreV1Api,
  CustomObjectsApi,
  NetworkingV1Api,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { GROUP, Labels, VERSION } from '../core/index.ts';
import { Informer, scopesOf } from '../kube/index.ts';
import { ownedIndexes, sandboxIndexes } from './indexes.ts';
import { EVICTED_EVENTS, eventIndexes, snapshotSource, type SandboxCaches } from './sandbox/index.ts';

type List = { items: KubernetesObject[]; metadata?: { resourceVersion?: string } };

/**
 * One informer per kind the controllers read, each listed once and shared: Sandboxes and
 * both template kinds whole; Pods, claims, token Secrets, Services, Ingresses and
 * NetworkPolicies only those labelled with a sandbox; the kubelet's `Evicted` Events of Pods;
 * VolumeSnapshots when their CRD exists.
 * `namespaces` limits the namespaced ones to a watch in each of them (ClusterSandboxTemplates
 * are cluster-wide): the operator is granted Pods, claims and Secrets only there, and a
 * cluster-wide watch, even label-selected, would need the right to list them everywhere.
 */
export async function sandboxInformers(
  kc: KubeConfig,
  logger: Logger,
  namespaces?: readonly string[],
): Promise<SandboxCaches> {
  const core = kc.makeApiClient(CoreV1Api);
  const net = kc.makeApiClient(NetworkingV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const labelSelector = Labels.sandbox;
  /** A labelled informer of a core or networking kind. */
  const labelled = <T extends KubernetesObject>(
    prefix: string,
    plural: string,
    inNamespace: (o: { namespace: string; labelSelector: string }) => Promise<List>,
    everywhere: (o: { labelSelector: string }) => Promise<List>,
  ) =>
    new Informer<T>({
      kc,
      logger,
      labelSelector,
      indexes: ownedIndexes,
      scopes: scopesOf(
        namespaces,
        (ns) => (ns ? `${prefix}/namespaces/${ns}/${plural}` : `${prefix}/${plural}`),
        (ns) => (ns ? inNamespace({ namespace: ns, labelSelector }) : everywhere({ labelSelector })),
      ),
    });
  const ours = (plural: string, namespaced: boolean, indexes = {}) => {
    const base = `/apis/${GROUP}/${VERSION}`;
    return new Informer<KubernetesObject>({
      kc,
      logger,
      indexes,
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
  const v1 = '/api/v1';
  const netv1 = '/apis/networking.k8s.io/v1';
  return {
    sandboxes: ours('sandboxes', true, sandboxIndexes),
    templates: ours('sandboxtemplates', true),
    clusterTemplates: ours('clustersandboxtemplates', false),
    pods: labelled(
      v1,
      'pods',
      (o) => core.listNamespacedPod(o),
      (o) => core.listPodForAllNamespaces(o),
    ),
    claims: labelled(
      v1,
      'persistentvolumeclaims',
      (o) => core.listNamespacedPersistentVolumeClaim(o),
      (o) => core.listPersistentVolumeClaimForAllNamespaces(o),
    ),
    secrets: labelled(
      v1,
      'secrets',
      (o) => core.listNamespacedSecret(o),
      (o) => core.listSecretForAllNamespaces(o),
    ),
    services: labelled(
      v1,
      'services',
      (o) => core.listNamespacedService(o),
      (o) => core.listServiceForAllNamespaces(o),
    ),
    ingresses: labelled(
      netv1,
      'ingresses',
      (o) => net.listNamespacedIngress(o),
      (o) => net.listIngressForAllNamespaces(o),
    ),
    networkPolicies: labelled(
      netv1,
      'networkpolicies',
      (o) => net.listNamespacedNetworkPolicy(o),
      (o) => net.listNetworkPolicyForAllNamespaces(o),
    ),
    // Field-selected, not labelled: the kubelet's Events carry no labels.
    evictions: new Informer({
      kc,
      logger,
      fieldSelector: EVICTED_EVENTS,
      indexes: eventIndexes,
      scopes: scopesOf(
        namespaces,
        (ns) => (ns ? `${v1}/namespaces/${ns}/events` : `${v1}/events`),
        (ns) =>
          ns
            ? core.listNamespacedEvent({ namespace: ns, fieldSelector: EVICTED_EVENTS })
            : core.listEventForAllNamespaces({ fieldSelector: EVICTED_EVENTS }),
      ),
    }),
    snapshots: await snapshotSource(kc, logger, namespaces),
  };
}

/** Every informer of `caches` (the snapshot one when watched), to start and stop together. */
export function informersOf(caches: SandboxCaches): Informer<KubernetesObject>[] {
  const { snapshots, ...rest } = caches;
  return [
    ...(Object.values(rest) as Informer<KubernetesObject>[]),
    ...(snapshots.informer ? [snapshots.informer] : []),
  ];
}
