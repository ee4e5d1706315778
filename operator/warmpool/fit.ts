// What the claim decides from objects it already holds: which pools fit a sandbox, which
// members are ready, and the owner reference and annotation a claimed member gets.
import type { V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import {
  GROUP,
  VERSION,
  WarmPool,
  workspaceClaimName,
  type Sandbox,
  type SandboxWarmPool,
} from '../../core/index.ts';
import type { Informer } from '../../kube/index.ts';

/**
 * Whether a pool's members fit a sandbox of this namespace, template, mode and image. A
 * Sandbox that names its own runtime class never fits: a pool's members run its template's.
 */
export function matches(pool: SandboxWarmPool, sandbox: Sandbox): boolean {
  return (
    !pool.metadata.deletionTimestamp &&
    sandbox.spec.runtimeClassName === undefined &&
    pool.spec.templateRef.name === sandbox.spec.templateRef.name &&
    pool.spec.templateRef.kind === sandbox.spec.templateRef.kind &&
    pool.spec.mode === sandbox.spec.mode &&
    (pool.spec.image?.repository ?? '') === (sandbox.spec.image?.repository ?? '')
  );
}

/**
 * Whether a member's Pod runs under `runtimeClass`, the sandbox's effective one (undefined:
 * the node's default). A member only ever serves claims of its own runtime class, whatever
 * the fit hash says (it covers the Pod spec too; this is said here plainly).
 */
export function servesRuntimeClass(member: V1Pod, runtimeClass: string | undefined): boolean {
  return (member.spec?.runtimeClassName ?? undefined) === runtimeClass;
}

/**
 * Ready to be claimed: its Pod ready (sandboxd answers its probe), its claim bound, and both
 * under the same controller (the pool): a claim of the member's name that is someone else's
 * is never a member's workspace.
 */
export function isReadyMember(pod: V1Pod, claims: Informer<V1PersistentVolumeClaim>): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  if (!pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) return false;
  const claim = claims.get(workspaceClaimName(pod.metadata!.name!), pod.metadata?.namespace);
  const controller = (o?: V1Pod | V1PersistentVolumeClaim) =>
    o?.metadata?.ownerReferences?.find((r) => r.controller)?.uid;
  return claim?.status?.phase === 'Bound' && !!controller(pod) && controller(claim) === controller(pod);
}

export function withMember(sandbox: Sandbox, member: string): Sandbox {
  return {
    ...sandbox,
    metadata: {
      ...sandbox.metadata,
      annotations: { ...sandbox.metadata.annotations, [WarmPool.memberAnnotation]: member },
    },
  };
}

export function ownerOf(sandbox: Sandbox) {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Sandbox',
    name: sandbox.metadata.name!,
    uid: sandbox.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function shuffle<T>(items: readonly T[]): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

export const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');
