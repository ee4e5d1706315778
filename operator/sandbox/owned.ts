import type {
  KubernetesObject,
  V1Ingress,
  V1NetworkPolicy,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Secret,
  V1Service,
} from '@kubernetes/client-node';
import {
  Labels,
  forwardedServiceName,
  sandboxObjectsName,
  sandboxdSecretName,
  workspaceClaimName,
  type Sandbox,
} from '../../core/index.ts';
import { ignoring, type Informer } from '../../kube/index.ts';
import { networkPolicyName } from '../manifests/index.ts';
import type { Pass, SandboxCaches, SandboxDeps } from './context.ts';

/**
 * One kind a Sandbox owns: where the controller sees it, which of its objects a sandbox has
 * by name, and how to create, replace and delete one. Creation (`ensure`) and finalization
 * (`removeOwned`) both go through this table, so a new owned kind is one entry here.
 */
export interface OwnedKind<T extends KubernetesObject = KubernetesObject> {
  kind: string;
  cache: (c: SandboxCaches) => Informer<T>;
  /** The names this sandbox's objects have (more may exist by label: old ports). */
  names: (sandbox: Sandbox) => string[];
  create: (d: SandboxDeps, namespace: string, body: T) => Promise<unknown>;
  replace: (d: SandboxDeps, namespace: string, name: string, body: T) => Promise<unknown>;
  remove: (d: SandboxDeps, namespace: string, name: string) => Promise<unknown>;
}

const name = (s: Sandbox) => s.metadata.name!;

export const Pod: OwnedKind<V1Pod> = {
  kind: 'Pod',
  cache: (c) => c.pods,
  names: (s) => [sandboxObjectsName(s)],
  create: (d, namespace, body) => d.core.createNamespacedPod({ namespace, body }),
  replace: (d, namespace, name, body) => d.core.replaceNamespacedPod({ name, namespace, body }),
  remove: (d, namespace, name) => d.core.deleteNamespacedPod({ name, namespace }),
};

export const Service: OwnedKind<V1Service> = {
  kind: 'Service',
  cache: (c) => c.services,
  names: (s) => (s.spec.ports ?? []).map((p) => forwardedServiceName(name(s), p.port)),
  create: (d, namespace, body) => d.core.createNamespacedService({ namespace, body }),
  replace: (d, namespace, name, body) => d.core.replaceNamespacedService({ name, namespace, body }),
  remove: (d, namespace, name) => d.core.deleteNamespacedService({ name, namespace }),
};

export const Ingress: OwnedKind<V1Ingress> = {
  kind: 'Ingress',
  cache: (c) => c.ingresses,
  names: (s) => Service.names(s),
  create: (d, namespace, body) => d.net.createNamespacedIngress({ namespace, body }),
  replace: (d, namespace, name, body) => d.net.replaceNamespacedIngress({ name, namespace, body }),
  remove: (d, namespace, name) => d.net.deleteNamespacedIngress({ name, namespace }),
};

export const NetworkPolicy: OwnedKind<V1NetworkPolicy> = {
  kind: 'NetworkPolicy',
  cache: (c) => c.networkPolicies,
  names: (s) => [networkPolicyName(name(s))],
  create: (d, namespace, body) => d.net.createNamespacedNetworkPolicy({ namespace, body }),
  replace: (d, namespace, name, body) => d.net.replaceNamespacedNetworkPolicy({ name, namespace, body }),
  remove: (d, namespace, name) => d.net.deleteNamespacedNetworkPolicy({ name, namespace }),
};

export const TokenSecret: OwnedKind<V1Secret> = {
  kind: 'Secret',
  cache: (c) => c.secrets,
  names: (s) => [sandboxdSecretName(name(s))],
  create: (d, namespace, body) => d.core.createNamespacedSecret({ namespace, body }),
  replace: (d, namespace, name, body) => d.core.replaceNamespacedSecret({ name, namespace, body }),
  remove: (d, namespace, name) => d.core.deleteNamespacedSecret({ name, namespace }),
};

export const Claim: OwnedKind<V1PersistentVolumeClaim> = {
  kind: 'PersistentVolumeClaim',
  cache: (c) => c.claims,
  names: (s) => [workspaceClaimName(sandboxObjectsName(s))],
  create: (d, namespace, body) => d.core.createNamespacedPersistentVolumeClaim({ namespace, body }),
  replace: (d, namespace, name, body) =>
    d.core.replaceNamespacedPersistentVolumeClaim({ name, namespace, body }),
  remove: (d, namespace, name) => d.core.deleteNamespacedPersistentVolumeClaim({ name, namespace }),
};

/**
 * Every owned kind, in the order finalization deletes them: the Pod first (nothing runs on
 * unseen), the workspace last.
 */
export const OWNED_KINDS = [Pod, Service, Ingress, NetworkPolicy, TokenSecret, Claim] as OwnedKind[];

/**
 * Creates `body` when the cache does not hold it (409: it exists, the cache is behind) and,
 * when it does and `stale` says the cached one is out of date, hands it to `update`
 * (a replace by default). An unchanged object costs no request.
 */
export async function ensure<T extends KubernetesObject>(
  pass: Pass,
  kind: OwnedKind<T>,
  body: T,
  stale?: (current: T) => boolean,
  update: (current: T) => Promise<unknown> = () =>
    kind.replace(pass.d, pass.namespace, body.metadata!.name!, body),
): Promise<void> {
  const current = kind.cache(pass.d.caches).get(body.metadata!.name!, pass.namespace);
  if (!current) await ignoring([409], () => kind.create(pass.d, pass.namespace, body));
  else if (stale?.(current)) await update(current);
}

/** Deletes one owned object (404: already gone). */
export function remove(pass: Pass, kind: OwnedKind, name: string): Promise<void> {
  return ignoring([404], () => kind.remove(pass.d, pass.namespace, name));
}

/** The sandbox's objects of `kind` the cache holds (by its label). */
export function cachedOf<T extends KubernetesObject>(pass: Pass, kind: OwnedKind<T>): T[] {
  return kind
    .cache(pass.d.caches)
    .list(pass.namespace)
    .filter((o) => o.metadata?.labels?.[Labels.sandbox] === pass.name);
}

/**
 * Deletes everything the Sandbox owns, kind by kind: the names it has and whatever else the
 * cache shows under its label. By name too, so an object created a moment ago and not yet
 * in the cache is not left behind (no garbage collector is assumed).
 */
export async function removeOwned(pass: Pass): Promise<void> {
  for (const kind of OWNED_KINDS) {
    const names = new Set([
      ...kind.names(pass.sandbox),
      ...cachedOf(pass, kind).map((o) => o.metadata!.name!),
    ]);
    for (const n of names) await remove(pass, kind, n);
  }
}
