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
  forwardedServiceName,
  networkPolicyName,
  sandboxObjectsName,
  sandboxdSecretName,
  workspaceClaimName,
  type Sandbox,
} from '../../core/index.ts';
import { ignoring, isStatus, type Informer } from '../../kube/index.ts';
import { Index } from '../indexes.ts';
import { NameConflict } from './conflict.ts';
import type { Pass, SandboxCaches, SandboxDeps } from './context.ts';

/**
 * One kind a Sandbox owns: where the controller sees it, which of its objects a sandbox has
 * by name, and how to create, read, replace and delete one. Creation (`ensure`) and
 * finalization (`removeOwned`) both go through this table, so a new owned kind is one entry.
 * An object is the sandbox's only when its controller reference is the Sandbox's uid
 * (`ownedBy`): its name and label say nothing, since anyone who may create a Secret or a
 * PVC in the namespace may give it any name and label.
 */
export interface OwnedKind<T extends KubernetesObject = KubernetesObject> {
  kind: string;
  cache: (c: SandboxCaches) => Informer<T>;
  /** The names this sandbox's objects have (more may exist by label: old ports). */
  names: (sandbox: Sandbox) => string[];
  create: (d: SandboxDeps, namespace: string, body: T) => Promise<unknown>;
  /** The object of this name, undefined when there is none. */
  read: (d: SandboxDeps, namespace: string, name: string) => Promise<T | undefined>;
  replace: (d: SandboxDeps, namespace: string, name: string, body: T) => Promise<unknown>;
  /** Deletes the object of this `uid` only (a precondition: 409 when the name is another's now). */
  remove: (d: SandboxDeps, namespace: string, name: string, uid: string) => Promise<unknown>;
}

const name = (s: Sandbox) => s.metadata.name!;
/** Delete options that delete only the object of this uid. */
const only = (uid: string) => ({ preconditions: { uid } });
/** A GET: undefined for 404. */
const got = <T>(read: Promise<T>): Promise<T | undefined> =>
  read.catch((err: unknown) => {
    if (isStatus(err, 404)) return undefined;
    throw err;
  });
/** By a list of one name (the operator lists and watches these kinds; it needs no get). */
const listed = <T>(list: Promise<{ items: T[] }>): Promise<T | undefined> => list.then((l) => l.items[0]);
const byName = (namespace: string, name: string) => ({ namespace, fieldSelector: `metadata.name=${name}` });

export const Pod: OwnedKind<V1Pod> = {
  kind: 'Pod',
  cache: (c) => c.pods,
  names: (s) => [sandboxObjectsName(s)],
  create: (d, namespace, body) => d.core.createNamespacedPod({ namespace, body }),
  read: (d, namespace, name) => got(d.core.readNamespacedPod({ name, namespace })),
  replace: (d, namespace, name, body) => d.core.replaceNamespacedPod({ name, namespace, body }),
  remove: (d, namespace, name, uid) => d.core.deleteNamespacedPod({ name, namespace, body: only(uid) }),
};

export const Service: OwnedKind<V1Service> = {
  kind: 'Service',
  cache: (c) => c.services,
  names: (s) => (s.spec.ports ?? []).map((p) => forwardedServiceName(name(s), p.port)),
  create: (d, namespace, body) => d.core.createNamespacedService({ namespace, body }),
  read: (d, namespace, name) => listed(d.core.listNamespacedService(byName(namespace, name))),
  replace: (d, namespace, name, body) => d.core.replaceNamespacedService({ name, namespace, body }),
  remove: (d, namespace, name, uid) => d.core.deleteNamespacedService({ name, namespace, body: only(uid) }),
};

export const Ingress: OwnedKind<V1Ingress> = {
  kind: 'Ingress',
  cache: (c) => c.ingresses,
  names: (s) => Service.names(s),
  create: (d, namespace, body) => d.net.createNamespacedIngress({ namespace, body }),
  read: (d, namespace, name) => listed(d.net.listNamespacedIngress(byName(namespace, name))),
  replace: (d, namespace, name, body) => d.net.replaceNamespacedIngress({ name, namespace, body }),
  remove: (d, namespace, name, uid) => d.net.deleteNamespacedIngress({ name, namespace, body: only(uid) }),
};

export const NetworkPolicy: OwnedKind<V1NetworkPolicy> = {
  kind: 'NetworkPolicy',
  cache: (c) => c.networkPolicies,
  names: (s) => [networkPolicyName(name(s))],
  create: (d, namespace, body) => d.net.createNamespacedNetworkPolicy({ namespace, body }),
  read: (d, namespace, name) => got(d.net.readNamespacedNetworkPolicy({ name, namespace })),
  replace: (d, namespace, name, body) => d.net.replaceNamespacedNetworkPolicy({ name, namespace, body }),
  remove: (d, namespace, name, uid) =>
    d.net.deleteNamespacedNetworkPolicy({ name, namespace, body: only(uid) }),
};

export const TokenSecret: OwnedKind<V1Secret> = {
  kind: 'Secret',
  cache: (c) => c.secrets,
  names: (s) => [sandboxdSecretName(sandboxObjectsName(s))],
  create: (d, namespace, body) => d.core.createNamespacedSecret({ namespace, body }),
  read: (d, namespace, name) => got(d.core.readNamespacedSecret({ name, namespace })),
  replace: (d, namespace, name, body) => d.core.replaceNamespacedSecret({ name, namespace, body }),
  remove: (d, namespace, name, uid) => d.core.deleteNamespacedSecret({ name, namespace, body: only(uid) }),
};

export const Claim: OwnedKind<V1PersistentVolumeClaim> = {
  kind: 'PersistentVolumeClaim',
  cache: (c) => c.claims,
  names: (s) => [workspaceClaimName(sandboxObjectsName(s))],
  create: (d, namespace, body) => d.core.createNamespacedPersistentVolumeClaim({ namespace, body }),
  read: (d, namespace, name) => got(d.core.readNamespacedPersistentVolumeClaim({ name, namespace })),
  replace: (d, namespace, name, body) =>
    d.core.replaceNamespacedPersistentVolumeClaim({ name, namespace, body }),
  remove: (d, namespace, name, uid) =>
    d.core.deleteNamespacedPersistentVolumeClaim({ name, namespace, body: only(uid) }),
};

/**
 * Every owned kind, in the order finalization deletes them: the Pod first (nothing runs on
 * unseen), the workspace last.
 */
export const OWNED_KINDS = [Pod, Service, Ingress, NetworkPolicy, TokenSecret, Claim] as OwnedKind[];

/** Whether `obj`'s controller reference is the Sandbox of this `uid`. */
export function ownedBy(obj: KubernetesObject | undefined, uid: string | undefined): boolean {
  return (
    !!uid &&
    !!obj?.metadata?.ownerReferences?.some((r) => r.controller && r.kind === 'Sandbox' && r.uid === uid)
  );
}

const conflictOf = (kind: { kind: string }, obj: KubernetesObject) =>
  new NameConflict(kind.kind, obj.metadata!.name!, !!obj.metadata?.deletionTimestamp);

/** The cached object of `name` when it is this sandbox's, else undefined (none, or another's). */
export function mine<T extends KubernetesObject>(
  pass: Pass,
  kind: OwnedKind<T>,
  name: string,
): T | undefined {
  const cached = kind.cache(pass.d.caches).get(name, pass.namespace);
  return ownedBy(cached, pass.sandbox.metadata.uid) ? cached : undefined;
}

/** The cached object of `name` when it is this sandbox's; undefined when none; NameConflict when another's. */
export function cachedOwn<T extends KubernetesObject>(
  pass: Pass,
  kind: OwnedKind<T>,
  name: string,
): T | undefined {
  const cached = kind.cache(pass.d.caches).get(name, pass.namespace);
  if (cached && !ownedBy(cached, pass.sandbox.metadata.uid)) throw conflictOf(kind, cached);
  return cached;
}

/**
 * Creates `body` when the cache does not hold it and, when it does and `stale` says the
 * cached one is out of date, hands it to `update` (a replace by default). An unchanged
 * object costs no request. A 409 on create is read once: this sandbox's (the cache is
 * behind) is done, anyone else's is a NameConflict. The caches hold only labelled objects,
 * so an unlabelled stranger of the name shows only here.
 */
export async function ensure<T extends KubernetesObject>(
  pass: Pass,
  kind: OwnedKind<T>,
  body: T,
  stale?: (current: T) => boolean,
  update: (current: T) => Promise<unknown> = () =>
    kind.replace(pass.d, pass.namespace, body.metadata!.name!, body),
): Promise<void> {
  const objectName = body.metadata!.name!;
  const current = cachedOwn(pass, kind, objectName);
  if (current) {
    if (stale?.(current)) await update(current);
    return;
  }
  try {
    await kind.create(pass.d, pass.namespace, body);
  } catch (err) {
    if (!isStatus(err, 409)) throw err;
    const live = await kind.read(pass.d, pass.namespace, objectName);
    if (live && !ownedBy(live, pass.sandbox.metadata.uid)) throw conflictOf(kind, live);
  }
}

/**
 * Deletes the sandbox's object of this name, if it is the sandbox's: by its uid, so an
 * object of the name that is someone else's (or replaced since it was read) is never
 * deleted. Read from the cache, else from the apiserver (one created a moment ago).
 */
export async function remove(pass: Pass, kind: OwnedKind, objectName: string): Promise<void> {
  const current =
    kind.cache(pass.d.caches).get(objectName, pass.namespace) ??
    (await kind.read(pass.d, pass.namespace, objectName));
  if (!current || !ownedBy(current, pass.sandbox.metadata.uid)) return;
  await ignoring([404, 409], () => kind.remove(pass.d, pass.namespace, objectName, current.metadata!.uid!));
}

/** The sandbox's objects of `kind` the cache holds (its label, and its uid as controller). */
export function cachedOf<T extends KubernetesObject>(pass: Pass, kind: OwnedKind<T>): T[] {
  return kind
    .cache(pass.d.caches)
    .byIndex(Index.sandbox, pass.key)
    .filter((o) => ownedBy(o, pass.sandbox.metadata.uid));
}

/**
 * Deletes everything the Sandbox owns, kind by kind: the names it has and whatever else the
 * cache shows under its label, each only when its controller reference is the Sandbox's uid.
 * By name too, so an object created a moment ago and not yet in the cache is not left behind
 * (no garbage collector is assumed).
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
