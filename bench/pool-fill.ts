// A bench's wait for a warm pool to fill, loud and early when it cannot: before the pool is
// scaled, whether its members fit the nodes at all (CPU, memory and Pod count left by what
// the nodes already run); while it fills, the pool's own Ready condition (the operator says
// `Unschedulable` or `MemberFailing` with the cause, operator/warmpool/short.ts) and, on every
// way it fails, each member that is not ready: its phase, scheduling, containers and claim.
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import {
  GROUP,
  VERSION,
  WarmPool,
  podReady,
  workspaceClaimName,
  type SandboxWarmPool,
} from '../core/index.ts';
import { cpuMillis } from './cluster-probe.ts';
import { poolFull } from './support.ts';

/** How long the pool may report a cause before the bench stops waiting (a transient one clears). */
const CAUSE_GRACE_MS = 60_000;

/**
 * Throws, saying what is free, when `size` members of pool `name` cannot fit the nodes: by
 * what a member Pod already made asks (its containers', init container's and any sidecar's
 * requests) against each node's allocatable CPU, memory and Pod count less what runs there.
 * Call it before scaling the pool up (it needs one member to read).
 */
export async function checkPoolRoom(
  kc: KubeConfig,
  namespace: string,
  name: string,
  size: number,
): Promise<void> {
  const room = await nodeRoom(kc.makeApiClient(CoreV1Api), namespace, name);
  const toPlace = size - room.placed;
  if (!room.member || toPlace <= 0) return;
  const cpu = request(room.member, 'cpu');
  const memory = request(room.member, 'memory');
  const fit = Math.min(
    room.pods,
    Math.floor(room.cpuMillis / Math.max(cpu, 1)),
    Math.floor(room.memoryBytes / Math.max(memory, 1)),
  );
  if (toPlace > fit)
    throw new Error(
      `pool ${name} cannot fill to ${size}: ${room.placed} members placed, room for ${fit} more ` +
        `(${room.detail}; a member asks ${cpu}m CPU and ${mib(memory)})`,
    );
}

/**
 * Waits until pool `name` has `size` Ready members and no others. Throws after CAUSE_GRACE_MS
 * when the pool keeps reporting why it cannot fill, and after `timeoutMs` in any case, each
 * time with what stands in the way.
 */
export async function waitPoolFull(
  kc: KubeConfig,
  namespace: string,
  name: string,
  size: number,
  timeoutMs: number,
): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  // Not `eventually`: a read that throws is "not yet" there, and a cause that stays must end the wait.
  const deadline = Date.now() + timeoutMs;
  let causeSince: number | undefined;
  for (;;) {
    if (await poolFull(kc, namespace, name, size).catch(() => false)) return;
    const pool = (await custom.getNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: 'sandboxwarmpools',
      name,
    })) as SandboxWarmPool;
    const ready = pool.status?.conditions?.find((c) => c.type === 'Ready');
    const blocked = ready?.reason === 'Unschedulable' || ready?.reason === 'MemberFailing';
    causeSince = blocked ? (causeSince ?? Date.now()) : undefined;
    if (causeSince !== undefined && Date.now() - causeSince > CAUSE_GRACE_MS)
      throw new Error(
        `pool ${name} cannot fill to ${size}: ${ready!.reason} for ${CAUSE_GRACE_MS / 1000} s; ` +
          (await describeShort(core, namespace, name, size, pool)),
      );
    if (Date.now() > deadline)
      throw new Error(
        `pool ${name} did not have ${size} Ready members after ${timeoutMs / 1000} s; ` +
          (await describeShort(core, namespace, name, size, pool)),
      );
    await sleep(250);
  }
}

/** The pool's condition and each member that is not ready, one line. */
async function describeShort(
  core: CoreV1Api,
  namespace: string,
  name: string,
  size: number,
  pool: SandboxWarmPool,
): Promise<string> {
  const ready = pool.status?.conditions?.find((c) => c.type === 'Ready');
  const [pods, claims] = await Promise.all([
    core.listNamespacedPod({ namespace, labelSelector: `${WarmPool.poolLabel}=${name}` }),
    core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector: `${WarmPool.poolLabel}=${name}` }),
  ]);
  const claimPhase = new Map(claims.items.map((c) => [c.metadata!.name!, c.status?.phase ?? '?']));
  const notReady = pods.items.filter((p) => p.metadata?.deletionTimestamp || !podReady(p));
  const members = notReady.map((p) => memberState(p, claimPhase.get(workspaceClaimName(p.metadata!.name!))));
  return (
    `status: ${pool.status?.readyReplicas ?? 0} of ${size} ready, ${ready?.reason ?? '—'} (${ready?.message ?? ''}); ` +
    `${pods.items.length} member Pods, not ready: ${members.length === 0 ? 'none' : members.join('; ')}`
  );
}

function memberState(p: V1Pod, claim: string | undefined): string {
  const scheduled = p.status?.conditions?.find((c) => c.type === 'PodScheduled');
  const containers = [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]
    .map((c) => {
      const s = c.state;
      const state = s?.running
        ? 'running'
        : s?.terminated
          ? `terminated ${s.terminated.reason ?? ''}`
          : `waiting ${s?.waiting?.reason ?? ''}`;
      return `${c.name} ${state}${c.restartCount > 0 ? ` (${c.restartCount} restarts)` : ''}`;
    })
    .join(', ');
  return [
    p.metadata!.name,
    p.metadata?.deletionTimestamp ? 'Terminating' : (p.status?.phase ?? '?'),
    scheduled?.status === 'False'
      ? `unscheduled: ${scheduled.message ?? scheduled.reason}`
      : `node ${p.spec?.nodeName ?? '—'}`,
    `claim ${claim ?? 'missing'}`,
    containers,
  ]
    .filter(Boolean)
    .join(' ');
}

/** What the nodes have left (allocatable less what their Pods request), and the pool's members now. */
async function nodeRoom(core: CoreV1Api, namespace: string, pool: string) {
  const [nodes, pods] = await Promise.all([core.listNode(), core.listPodForAllNamespaces()]);
  const live = pods.items.filter((p) => !['Succeeded', 'Failed'].includes(p.status?.phase ?? ''));
  let cpu = 0;
  let memory = 0;
  let count = 0;
  const parts: string[] = [];
  for (const node of nodes.items) {
    if (node.spec?.unschedulable) continue;
    const here = live.filter((p) => p.spec?.nodeName === node.metadata!.name);
    const a = node.status?.allocatable ?? {};
    const freeCpu = cpuMillis(a.cpu ?? '0') - sum(here.map((p) => request(p, 'cpu')));
    const freeMem = bytes(a.memory ?? '0') - sum(here.map((p) => request(p, 'memory')));
    const freePods = Number(a.pods ?? 0) - here.length;
    cpu += Math.max(0, freeCpu);
    memory += Math.max(0, freeMem);
    count += Math.max(0, freePods);
    parts.push(`${node.metadata!.name}: ${freeCpu}m CPU, ${mib(freeMem)}, ${freePods} Pods free`);
  }
  const members = live.filter(
    (p) => p.metadata?.namespace === namespace && p.metadata?.labels?.[WarmPool.poolLabel] === pool,
  );
  // Members already placed hold their share above; those still to be placed are what must fit.
  const placed = members.filter((p) => p.spec?.nodeName).length;
  return {
    cpuMillis: cpu,
    memoryBytes: memory,
    pods: count,
    placed,
    member: members[0],
    detail: parts.join(', '),
  };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mib = (b: number) => `${Math.round(b / 2 ** 20)}Mi`;

/** A Pod's effective request of `resource`: its containers' sum, or its largest init container's. */
export function request(p: V1Pod, resource: 'cpu' | 'memory'): number {
  const of = (cs: { resources?: { requests?: Record<string, string> } }[] | undefined) =>
    (cs ?? []).map((c) => {
      const q = c.resources?.requests?.[resource] ?? '0';
      return resource === 'cpu' ? cpuMillis(q) : bytes(q);
    });
  return Math.max(sum(of(p.spec?.containers)), ...of(p.spec?.initContainers));
}

/** Bytes of a memory quantity (`32Mi`, `1Gi`, `24581684Ki`, `128M`, `1000`). */
export function bytes(q: string): number {
  const m = /^(\d+(?:\.\d+)?)([KMGTE]i?)?$/.exec(q);
  if (!m) return 0;
  const unit = m[2] ?? '';
  const power = { K: 1, M: 2, G: 3, T: 4, E: 6 }[unit[0] as 'K'] ?? 0;
  return Math.round(Number(m[1]) * (unit.endsWith('i') ? 1024 : 1000) ** power);
}
