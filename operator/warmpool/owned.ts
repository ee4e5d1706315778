import type {
  CoreV1Api,
  KubernetesObject,
  NetworkingV1Api,
  V1NetworkPolicy,
  V1Pod,
} from '@kubernetes/client-node';
import { WarmPool, sandboxdSecretName, workspaceClaimName, type SandboxWarmPool } from '../../core/index.ts';
import { ignoring, isStatus } from '../../kube/index.ts';
import { poolSandboxdPolicyName } from './member.ts';

/**
 * Whether `obj`'s controller reference is this pool's uid. A member's objects are the pool's
 * by that alone: its label and name may be anyone's, and a claimed member's are its sandbox's.
 */
export function poolOwns(obj: KubernetesObject | undefined, pool: SandboxWarmPool): boolean {
  return !!obj?.metadata?.ownerReferences?.some(
    (r) => r.controller && r.kind === 'SandboxWarmPool' && r.uid === pool.metadata.uid,
  );
}

/** The pool's NetworkPolicy's name. */
export const poolPolicyName = (pool: SandboxWarmPool) => `warmpool-${pool.metadata.name!}`;

/**
 * Creates the pool's NetworkPolicy when missing; false when one of its name exists that is
 * not the pool's (its members would run under none of their own: none are made then).
 */
export async function ensurePoolPolicy(
  net: NetworkingV1Api,
  pool: SandboxWarmPool,
  body: V1NetworkPolicy,
): Promise<boolean> {
  const namespace = pool.metadata.namespace!;
  try {
    await net.createNamespacedNetworkPolicy({ namespace, body });
    return true;
  } catch (err) {
    if (!isStatus(err, 409)) throw err;
    const current = await orUndefined(
      net.readNamespacedNetworkPolicy({ name: body.metadata!.name!, namespace }),
    );
    return !current || poolOwns(current, pool);
  }
}

/**
 * A member's Pod, claim and Secret, each only while it is the pool's. The Pod by its uid and
 * the resourceVersion the pool saw: a claim committed since then changed it (and keeps it,
 * 409 here). The claim and Secret by uid, once read and found the pool's (a claim's
 * bookkeeping may have moved them to its sandbox already).
 */
export async function deleteMember(core: CoreV1Api, pool: SandboxWarmPool, pod: V1Pod): Promise<void> {
  const namespace = pool.metadata.namespace!;
  const name = pod.metadata!.name!;
  if (poolOwns(pod, pool)) {
    const { uid, resourceVersion } = pod.metadata!;
    await ignoring([404, 409], () =>
      core.deleteNamespacedPod({ name, namespace, body: { preconditions: { uid, resourceVersion } } }),
    );
  }
  const claim = await orUndefined(
    core.readNamespacedPersistentVolumeClaim({ name: workspaceClaimName(name), namespace }),
  );
  if (poolOwns(claim, pool))
    await ignoring([404, 409], () =>
      core.deleteNamespacedPersistentVolumeClaim({
        name: workspaceClaimName(name),
        namespace,
        body: { preconditions: { uid: claim!.metadata!.uid } },
      }),
    );
  const secret = await orUndefined(core.readNamespacedSecret({ name: sandboxdSecretName(name), namespace }));
  if (poolOwns(secret, pool))
    await ignoring([404, 409], () =>
      core.deleteNamespacedSecret({
        name: sandboxdSecretName(name),
        namespace,
        body: { preconditions: { uid: secret!.metadata!.uid } },
      }),
    );
}

/**
 * At the pool's deletion, what remains of it besides member Pods: the claims and Secrets of
 * members whose Pod was gone already, and its two NetworkPolicies, each only when the pool's.
 */
export async function deletePoolLeftovers(
  api: { core: CoreV1Api; net: NetworkingV1Api },
  pool: SandboxWarmPool,
): Promise<void> {
  const namespace = pool.metadata.namespace!;
  const labelSelector = `${WarmPool.poolLabel}=${pool.metadata.name!}`;
  const only = (o: KubernetesObject) => ({ preconditions: { uid: o.metadata!.uid } });
  for (const c of (await api.core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector })).items)
    if (poolOwns(c, pool))
      await ignoring([404, 409], () =>
        api.core.deleteNamespacedPersistentVolumeClaim({ name: c.metadata!.name!, namespace, body: only(c) }),
      );
  for (const s of (await api.core.listNamespacedSecret({ namespace, labelSelector })).items)
    if (poolOwns(s, pool))
      await ignoring([404, 409], () =>
        api.core.deleteNamespacedSecret({ name: s.metadata!.name!, namespace, body: only(s) }),
      );
  for (const name of [poolPolicyName(pool), poolSandboxdPolicyName(pool)]) {
    const policy = await orUndefined(api.net.readNamespacedNetworkPolicy({ name, namespace }));
    if (poolOwns(policy, pool))
      await ignoring([404, 409], () =>
        api.net.deleteNamespacedNetworkPolicy({ name, namespace, body: only(policy!) }),
      );
  }
}

async function orUndefined<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (isStatus(err, 404)) return undefined;
    throw err;
  }
}
