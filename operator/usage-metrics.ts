import type { V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Sandbox } from '../core/index.ts';
import type { SandboxdLocator } from '../kube/index.ts';
import type { OperatorMetrics } from './metrics.ts';
import type { SandboxCaches } from './sandbox/index.ts';

/** How often the leader samples the usage of every running sandbox for its histograms. */
export const USAGE_SAMPLE_MS = 30_000;

/** The template a sandbox resolved to (`Kind/name`): the only label its usage carries. */
export function templateLabel(s: Sandbox): string {
  return s.status?.resolvedTemplate ?? `${s.spec?.templateRef?.kind}/${s.spec?.templateRef?.name}`;
}

/**
 * Every `every` ms, asks each running sandbox's sandboxd for its usage (`GET /usage`, a read
 * that is no activity) and puts its CPU and memory in the histograms by template. The
 * requests go straight to sandboxd, never the apiserver; the Pods come from the cache.
 * A sandbox that does not answer is left out of that round.
 */
export function sampleUsage(o: {
  caches: SandboxCaches;
  locator: SandboxdLocator;
  metrics: OperatorMetrics;
  logger: Logger;
  every?: number;
}): () => Promise<void> {
  let round: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    round = Promise.all(
      running(o.caches).map(async ({ template, pod }) => {
        const client = await o.locator.forPod(pod);
        const { status, body } = await client.usage();
        if (status !== 200) return;
        const u = body as {
          cpu?: { cores?: number };
          memory?: { workingSetBytes?: number };
          cgroup?: boolean;
        };
        if (u.cgroup === false) return;
        o.metrics.observeUsage(template, u.cpu?.cores ?? 0, u.memory?.workingSetBytes ?? 0);
      }),
    ).catch((err: unknown) => o.logger.debug({ err }, 'a usage sample failed'));
  }, o.every ?? USAGE_SAMPLE_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await round;
  };
}

/** The running sandbox Pods in the cache, each with its sandbox's template. */
function running(caches: SandboxCaches): { template: string; pod: V1Pod }[] {
  const byUid = new Map<string, Sandbox>();
  for (const s of caches.sandboxes.list()) {
    const sandbox = s as Sandbox;
    if (sandbox.status?.phase === 'Running' && sandbox.metadata.uid) byUid.set(sandbox.metadata.uid, sandbox);
  }
  return caches.pods.list().flatMap((pod) => {
    const owner = pod.metadata?.ownerReferences?.find((r) => r.controller && r.kind === 'Sandbox');
    const sandbox = owner && byUid.get(owner.uid);
    if (!sandbox || pod.status?.phase !== 'Running' || pod.metadata?.deletionTimestamp) return [];
    return [{ template: templateLabel(sandbox), pod }];
  });
}
