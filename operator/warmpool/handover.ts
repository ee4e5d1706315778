import type { V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { WarmPool, sandboxdToken, type Sandbox, type SandboxWarmPool } from '../../core/index.ts';
import { SandboxdClient, type SandboxdLocator } from '../../kube/index.ts';
import { standIn, type PoolCache } from './member.ts';

/**
 * The claimed member's sandboxd takes the sandbox's token from the member's (the pool's),
 * authenticated by the member's; from then on the old one is refused. Repeating it is
 * harmless: sandboxd that already has the new token refuses the old one (401).
 */
export async function handOver(
  d: { pools: PoolCache; key: () => Promise<Buffer>; locator: SandboxdLocator },
  log: Logger,
  sandbox: Sandbox,
  pod: V1Pod,
  token: string,
  pool?: SandboxWarmPool,
): Promise<void> {
  const address = d.locator.addressOf(pod);
  // A claim this pass made knows its pool; one a leader before it left half done names it
  // on the Pod (the pool's label went with the commit).
  const owner =
    pool ??
    d.pools.get(
      pod.metadata?.annotations?.[WarmPool.claimedFromAnnotation] ?? '',
      sandbox.metadata.namespace,
    );
  if (!address || !owner) return; // the pool is gone: its token cannot be derived to hand over
  const old = sandboxdToken(await d.key(), {
    namespace: sandbox.metadata.namespace!,
    name: pod.metadata!.name!,
    uid: standIn(owner, pod.metadata!.name!).metadata.uid!,
  });
  const status = await new SandboxdClient({ address, token: old }).setToken(token);
  if (status === 401) log.debug({ member: pod.metadata?.name }, 'sandboxd already had the new token');
  d.locator.forget(sandbox.metadata.namespace!, sandbox.metadata.name!);
}
