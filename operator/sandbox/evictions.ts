import type { CoreV1Event, KubernetesObject, V1Pod } from '@kubernetes/client-node';
import { Labels, type EvictionSeen } from '../../core/index.ts';
import type { IndexFunc } from '../../kube/index.ts';
import type { Pass, SandboxCaches } from './context.ts';

/**
 * The kubelet's Events the operator watches: evictions of Pods, and nothing else. When the
 * kubelet evicts a sandbox Pod, sandboxd exits 0 on its SIGTERM and the Pod often ends
 * `Succeeded` with no reason, so this Event is what says why (see `podEnd`). A watch, not a
 * list per pass: a healthy sandbox costs no request, and an Event that comes after the Pod
 * ended reconciles its sandbox again.
 */
export const EVICTED_EVENTS = 'involvedObject.kind=Pod,reason=Evicted';

/** The Events' cache index: by the uid of the Pod they are about. */
export const INVOLVED_UID = 'involvedUid';
export const eventIndexes: Record<string, IndexFunc<CoreV1Event>> = {
  [INVOLVED_UID]: (e) => (e.involvedObject?.uid ? [e.involvedObject.uid] : []),
};

/** What is known of an eviction of `pod` besides the Pod itself: its Event, the sandbox's own record. */
export function evictionSeen(pass: Pass, pod: V1Pod): EvictionSeen {
  const uid = pod.metadata?.uid;
  const events = uid ? pass.d.caches.evictions.byIndex(INVOLVED_UID, uid) : [];
  // The latest, should the kubelet have said it more than once.
  const latest = [...events].sort((a, b) => when(b) - when(a))[0];
  const ready = pass.sandbox.status?.conditions?.find((c) => c.type === 'Ready');
  return {
    ...(latest?.message ? { event: latest.message } : {}),
    ...(ready?.status === 'False' && ready.reason === 'Evicted' && ready.message
      ? { recorded: ready.message }
      : {}),
  };
}

function when(e: CoreV1Event): number {
  const t = e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp;
  return t ? new Date(t).getTime() : 0;
}

/** The sandbox an eviction Event is about: that of the cached Pod of its name and uid. */
export function sandboxOfEvent(caches: SandboxCaches, e: KubernetesObject): string[] {
  const { name, namespace, uid } = (e as CoreV1Event).involvedObject ?? {};
  if (!name || !namespace) return [];
  const pod = caches.pods.get(name, namespace);
  const sandbox = pod?.metadata?.uid === uid ? pod?.metadata?.labels?.[Labels.sandbox] : undefined;
  return sandbox ? [`${namespace}/${sandbox}`] : [];
}
