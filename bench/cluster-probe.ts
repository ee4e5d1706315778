// What a bench reads of a real cluster (bench/real.ts) beside the API: the operators' own
// request counters (through the apiserver's Pod proxy), a Pod's memory from its cgroup on its
// node (this cluster has no metrics-server, and `kubectl top` needs one), and how many Pods of
// a CPU request the nodes can still place.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import type { RealCluster } from './real.ts';

export interface Requests {
  total: number;
  byVerb: Record<string, number>;
  /**
   * The operators' container restarts so far. A restarted operator (it exits when it loses
   * its Lease, as at a high load) counts from 0 again, so two readings are comparable only
   * when this did not change between them.
   */
  restarts: number;
}

/**
 * The operators' svc_kube_requests_total summed over their Pods, Lease renewals left out. A
 * Pod that does not answer (restarting) is asked again for up to `patienceMs`.
 */
export async function operatorRequests(
  core: CoreV1Api,
  operators: V1Pod[],
  patienceMs = 120_000,
): Promise<Requests> {
  const byVerb: Record<string, number> = {};
  let total = 0;
  for (const pod of operators) {
    const deadline = performance.now() + patienceMs;
    let text: string;
    for (;;) {
      try {
        text = String(
          await core.connectGetNamespacedPodProxyWithPath({
            name: `${pod.metadata!.name!}:8081`,
            namespace: pod.metadata!.namespace!,
            path: 'metrics',
          }),
        );
        break;
      } catch (err) {
        if (performance.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    for (const m of text.matchAll(/^svc_kube_requests_total\{([^}]*)\} (\S+)$/gm)) {
      const labels: Record<string, string> = {};
      for (const l of m[1]!.matchAll(/(\w+)="([^"]*)"/g)) labels[l[1]!] = l[2]!;
      if (labels.resource === 'leases') continue;
      const key = `${labels.verb} ${labels.resource}`;
      byVerb[key] = (byVerb[key] ?? 0) + Number(m[2]);
      total += Number(m[2]);
    }
  }
  let restarts = 0;
  for (const pod of operators) {
    const now = await core.readNamespacedPod({
      name: pod.metadata!.name!,
      namespace: pod.metadata!.namespace!,
    });
    restarts += (now.status?.containerStatuses ?? []).reduce((n, c) => n + c.restartCount, 0);
  }
  return { total, byVerb, restarts };
}

/**
 * A Pod's (or one of its containers') working set, as the kubelet counts it: the memory
 * cgroup's usage less its inactive file pages. cgroup v1 here: the node's kubelet has the
 * cgroup root `/svc-cluster-RUN/NODE` (hack/cluster/up.sh), Pods under `kubepods/[QOS/]podUID`,
 * each container under its containerd id.
 */
export async function podMemory(cluster: RealCluster, pod: V1Pod, container?: string): Promise<number> {
  const base = join('/sys/fs/cgroup/memory', `svc-cluster-${cluster.run}`, pod.spec!.nodeName!, 'kubepods');
  const qos =
    { Guaranteed: '', Burstable: 'burstable', BestEffort: 'besteffort' }[pod.status?.qosClass ?? ''] ?? '';
  let dir = join(base, qos, `pod${pod.metadata!.uid!}`);
  if (container) {
    const id = pod.status?.containerStatuses?.find((c) => c.name === container)?.containerID;
    if (!id) throw new Error(`${pod.metadata!.name} has no running container ${container}`);
    dir = join(dir, id.replace(/^[a-z]+:\/\//, ''));
  }
  const usage = Number(await readFile(join(dir, 'memory.usage_in_bytes'), 'utf8'));
  const stat = await readFile(join(dir, 'memory.stat'), 'utf8');
  const inactive = Number(/^total_inactive_file (\d+)$/m.exec(stat)?.[1] ?? 0);
  return Math.max(0, usage - inactive);
}

/** Millicores of a CPU quantity (`100m`, `0.5`, `2`). */
export function cpuMillis(q: string): number {
  return q.endsWith('m') ? Number(q.slice(0, -1)) : Math.round(Number(q) * 1000);
}

/** How many more Pods requesting `millis` of CPU the nodes can place, by their allocatable CPU. */
export async function fits(core: CoreV1Api, millis: number): Promise<{ fit: number; detail: string }> {
  const [nodes, pods] = await Promise.all([core.listNode(), core.listPodForAllNamespaces()]);
  let fit = 0;
  const parts: string[] = [];
  for (const node of nodes.items) {
    const name = node.metadata!.name!;
    const allocatable = cpuMillis(node.status?.allocatable?.cpu ?? '0');
    const requested = pods.items
      .filter((p) => p.spec?.nodeName === name && !['Succeeded', 'Failed'].includes(p.status?.phase ?? ''))
      .map(podCpuRequest)
      .reduce((a, b) => a + b, 0);
    const n = Math.floor((allocatable - requested) / millis);
    fit += n;
    parts.push(`${name}: ${allocatable - requested}m of ${allocatable}m free`);
  }
  return { fit, detail: `${parts.join(', ')}; ${millis}m a Pod` };
}

/** A Pod's effective CPU request: its containers' sum, or its largest init container's. */
function podCpuRequest(p: V1Pod): number {
  const of = (cs: { resources?: { requests?: Record<string, string> } }[] | undefined) =>
    (cs ?? []).map((c) => cpuMillis(c.resources?.requests?.cpu ?? '0'));
  const main = of(p.spec?.containers).reduce((a, b) => a + b, 0);
  return Math.max(main, ...of(p.spec?.initContainers));
}
