import type { V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { WarmPool, sandboxdToken, type Sandbox, type SandboxWarmPool } from '../../core/index.ts';
import { SandboxdClient, type SandboxdLocator } from '../../kube/index.ts';
import { standIn, type PoolCache } from './member.ts';

/*
 * A claim's writes, and why each waits for the one before (the warm path's length, issue 39):
 * - The sandbox's NetworkPolicy, then the take (reconcile.ts, `inOrder`): the take drops the
 *   pool's label, and with it the pool's policy; a Pod under no policy for egress may reach
 *   anything. The pool's sandboxd policy (`poolSandboxdPolicy`) stays on the Pod, but it is
 *   ingress only, so it keeps the API's way in open, not egress shut. To overlap them, the
 *   take would have to leave the Pod under an egress rule (the pool's label dropped only with
 *   the bookkeeping after Running, say), and every reader of the members' cache would see a
 *   claimed Pod under the pool's label until then.
 * - The take, then the hand-over: a take that loses (409) must leave the member's sandboxd
 *   with the pool's token, since the claim that won hands over from that one.
 * - The hand-over, then the status write: `Running` tells a client to call with the
 *   sandbox's token, which sandboxd must accept by then.
 * What does overlap the status write is the rest: the Secret's and claim's move, the member's
 * name on the Sandbox (`after`), and the pool's refill, held until then.
 */

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
