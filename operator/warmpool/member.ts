// A warm-pool member's objects, made with the same manifest functions as a Sandbox's (so a
// claimed member is exactly what a cold create would have made), from a stand-in Sandbox
// that carries the pool's template, mode and image and the member's name.
import { createHash, randomBytes } from 'node:crypto';
import type {
  V1NetworkPolicy,
  V1OwnerReference,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Secret,
} from '@kubernetes/client-node';
import {
  GROUP,
  Labels,
  VERSION,
  WarmPool,
  type Sandbox,
  type SandboxTemplateSpec,
  type SandboxWarmPool,
} from '../../core/index.ts';
import { networkPolicy, sandboxPod, tokenSecret, workspaceClaim } from '../manifests/index.ts';
import type { OperatorSettings } from '../settings.ts';

/** A member's name: the pool's (shortened, so `<member>-workspace` fits 63) and a random suffix. */
export function memberName(pool: string): string {
  const suffix = Array.from(randomBytes(5), (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');
  return `${pool.slice(0, 40).replace(/-+$/, '')}-${suffix}`;
}

/** The Sandbox a member stands in for: the pool's template, mode and image, nothing more. */
export function standIn(pool: SandboxWarmPool, name: string): Sandbox {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Sandbox',
    metadata: { name, namespace: pool.metadata.namespace, uid: `warmpool-${pool.metadata.uid}` },
    spec: {
      mode: pool.spec.mode,
      templateRef: pool.spec.templateRef,
      ...(pool.spec.image?.repository ? { image: { repository: pool.spec.image.repository } } : {}),
      stopped: false,
    },
  };
}

/**
 * What a sandbox's Pod and workspace would be, names aside: two sandboxes with the same fit
 * get the same Pod spec and claim spec, so one may take over a member made for the other.
 * It covers the template, the mode, the image, the environment, resources, credentials and
 * the memory sidecar choice; a changed template gives a new fit, which makes members stale.
 */
export function fitOf(sandbox: Sandbox, template: SandboxTemplateSpec, settings: OperatorSettings): string {
  const probe: Sandbox = {
    ...sandbox,
    metadata: { name: 'member', namespace: sandbox.metadata.namespace, uid: 'member' },
    status: undefined,
  };
  const pod = sandboxPod(probe, template, settings).spec!;
  const { hostname: _name, ...podSpec } = pod;
  const claim = workspaceClaim(probe, template).spec;
  return createHash('sha256').update(JSON.stringify({ podSpec, claim })).digest('hex').slice(0, 16);
}

function poolOwner(pool: SandboxWarmPool): V1OwnerReference {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'SandboxWarmPool',
    name: pool.metadata.name!,
    uid: pool.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The member's metadata: the pool's label and owner reference instead of a Sandbox's. */
function asMember<T extends { metadata?: { labels?: Record<string, string>; ownerReferences?: unknown } }>(
  obj: T,
  pool: SandboxWarmPool,
  extraLabels: Record<string, string> = {},
): T {
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      labels: { [WarmPool.poolLabel]: pool.metadata.name!, ...extraLabels },
      ownerReferences: [poolOwner(pool)],
    },
  };
}

export interface MemberObjects {
  secret: V1Secret;
  claim: V1PersistentVolumeClaim;
  pod: V1Pod;
}

export function memberObjects(
  pool: SandboxWarmPool,
  name: string,
  template: SandboxTemplateSpec,
  settings: OperatorSettings,
  token: string,
  fit: string,
): MemberObjects {
  const sandbox = standIn(pool, name);
  const pod = asMember(sandboxPod(sandbox, template, settings), pool, {
    [Labels.mode]: pool.spec.mode,
    [WarmPool.memberOfLabel]: pool.metadata.name!,
  });
  pod.metadata!.annotations = { ...pod.metadata!.annotations, [WarmPool.fitAnnotation]: fit };
  return {
    secret: asMember(tokenSecret(sandbox, token), pool),
    claim: asMember(workspaceClaim(sandbox, template), pool),
    pod,
  };
}

/** Members reach only what their sandboxes will: the pool's template decides egress. */
export function poolNetworkPolicy(
  pool: SandboxWarmPool,
  template: SandboxTemplateSpec,
  settings: OperatorSettings,
): V1NetworkPolicy {
  const policy = networkPolicy(standIn(pool, pool.metadata.name!), template, settings);
  return {
    ...policy,
    metadata: {
      name: `warmpool-${pool.metadata.name!}`,
      namespace: pool.metadata.namespace,
      annotations: policy.metadata?.annotations,
      labels: { [WarmPool.poolLabel]: pool.metadata.name! },
      ownerReferences: [poolOwner(pool)],
    },
    spec: { ...policy.spec!, podSelector: { matchLabels: { [WarmPool.poolLabel]: pool.metadata.name! } } },
  };
}

/**
 * Its name: not `warmpool-<pool>-sandboxd`, which is the first policy's name of a pool
 * called `<pool>-sandboxd`.
 */
export const poolSandboxdPolicyName = (pool: SandboxWarmPool) => `warmpool.${pool.metadata.name!}.sandboxd`;

/**
 * The pool's second NetworkPolicy: ingress to sandboxd from the API and the operator, for
 * every Pod the pool made, claimed or not (`WarmPool.memberOfLabel`, which a claim keeps).
 * A claim moves its Pod from the pool's policy to its sandbox's by relabelling it, and a
 * NetworkPolicy enforcer reprograms the Pod after the write: kube-router refused the API's
 * connections to a just-claimed sandboxd for up to a few hundred ms, the warm creates' tail.
 * A rule that selects the Pod before, during and after the relabel keeps that way in open
 * throughout. It allows nothing the sandbox's own policy does not (that one's first ingress
 * rule is the same peers and port), and it has no egress: it never widens what a sandbox may
 * reach. Ingress only, so it isolates no other direction.
 */
export function poolSandboxdPolicy(
  pool: SandboxWarmPool,
  template: SandboxTemplateSpec,
  settings: OperatorSettings,
): V1NetworkPolicy {
  const sandboxd = networkPolicy(standIn(pool, pool.metadata.name!), template, settings).spec!.ingress![0]!;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      name: poolSandboxdPolicyName(pool),
      namespace: pool.metadata.namespace,
      labels: { [WarmPool.poolLabel]: pool.metadata.name! },
      ownerReferences: [poolOwner(pool)],
    },
    spec: {
      podSelector: { matchLabels: { [WarmPool.memberOfLabel]: pool.metadata.name! } },
      policyTypes: ['Ingress'],
      ingress: [sandboxd],
    },
  };
}

/** The pools' cache, typed (SandboxWarmPool's metadata is core's, not client-node's). */
export interface PoolCache {
  get(name: string, namespace?: string): SandboxWarmPool | undefined;
  list(namespace?: string): readonly SandboxWarmPool[];
  byIndex(name: string, value: string): readonly SandboxWarmPool[];
}
