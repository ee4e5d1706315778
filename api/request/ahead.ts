import type { Sandbox } from '../../core/index.ts';
import type { ApiDeps } from '../deps.ts';

/**
 * How lately a sandbox must have turned Ready for its sandboxd to be looked up ahead: long
 * enough for the cache to see it late and for the condition's second-resolution time, short
 * enough that a relist at start-up (every sandbox `added`) looks up no old ones.
 */
const AHEAD_WINDOW_MS = 10_000;

/**
 * Looks each sandbox's sandboxd up as soon as the cache sees it turn Running (its Pod read
 * and proven the sandbox's, its token derived: `SandboxdLocator.prepare`), so that the first
 * exec, invoke or file call after Running, which a client sends the moment its watch says
 * Running, finds it kept instead of reading the Pod itself. One Pod read per sandbox and
 * replica, which that first call would have made; nothing for a sandbox Running for long.
 * A deleted sandbox's answer is dropped. Returns the function that stops it.
 */
export function locateAhead(deps: Pick<ApiDeps, 'cache' | 'sandboxd' | 'clock'>): () => void {
  return deps.cache.subscribe((change, sandbox) => {
    const { namespace = '', name = '', uid } = sandbox.metadata;
    // What is kept of a sandbox goes with it: the locator holds live sandboxes only.
    if (change === 'deleted') return deps.sandboxd.forget(namespace, name);
    if (uid && justRunning(sandbox, deps.clock().getTime()))
      deps.sandboxd.prepare(namespace, name, uid, { podName: sandbox.status?.podName });
  });
}

/** Running, not being deleted, and Ready since at most `AHEAD_WINDOW_MS`. */
function justRunning(sandbox: Sandbox, now: number): boolean {
  if (sandbox.status?.phase !== 'Running' || sandbox.metadata.deletionTimestamp) return false;
  const ready = sandbox.status.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
  const since = Date.parse(ready?.lastTransitionTime ?? '');
  return Number.isFinite(since) && now - since < AHEAD_WINDOW_MS;
}
