import type { V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { SandboxPod } from '../../core/index.ts';
import type { SandboxdLocator } from '../../kube/index.ts';

/** A probe stops here; the Pod's own Ready condition (the kubelet's probe) still comes. */
const GIVE_UP_MS = 60_000;
/** The finest wait between tries, while sandboxd may be listening any moment. */
const MIN_WAIT_MS = 5;
/** The coarsest, once sandboxd has kept the probe waiting for long (an image pull, say). */
const MAX_WAIT_MS = 250;
/** Each probe running makes every probe wait this much more: a burst shares one budget. */
const SHARE_MS = 1;
/** A try that has no answer by then is given up (a packet dropped on the way, say). */
const TRY_TIMEOUT_MS = 1_000;

/**
 * The wait before a probe's next try, `elapsedMs` after its first, with `probing` probes running
 * (this one included); undefined once the probe should give up. A hundredth of the time waited so
 * far, so a sandboxd that comes up is seen within a hundredth of the time it took and a probe makes
 * a few hundred tries in its minute (every 5 ms over the first half second, every 10 ms at one
 * second, 100 ms at ten); never below 5 ms, never above 250 ms; and at least a millisecond per
 * probe running, so that a burst of a hundred starts asks sandboxds at most a thousand times a
 * second.
 */
export function probeWait(elapsedMs: number, probing: number): number | undefined {
  if (elapsedMs >= GIVE_UP_MS) return undefined;
  const own = Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, Math.round(elapsedMs / 100)));
  return Math.max(own, probing * SHARE_MS);
}

/**
 * Which start of the sandbox's container to probe for, or undefined when none is to be: `id`
 * names it (Pod, restart, address) and `running` says whether the kubelet reports it running.
 * A first start is probed from when the Pod has an address, through its init container and the
 * container's own start: on a real node the kubelet reports each of those a status write (and up
 * to a relist period) after it happened, and sandboxd listens long before. A restart only once it
 * runs: a container waiting after it ran is down, whatever its sandboxd answered before. A Pod
 * that is going or has ended has nothing to probe.
 */
export function probeStart(
  pod: V1Pod,
  address: string | undefined,
): { id: string; running: boolean } | undefined {
  const phase = pod.status?.phase;
  if (!address || pod.metadata?.deletionTimestamp || phase === 'Succeeded' || phase === 'Failed')
    return undefined;
  const status = pod.status?.containerStatuses?.find((c) => c.name === SandboxPod.container);
  const restarts = status?.restartCount ?? 0;
  const running = !!status?.state?.running;
  const firstStart = restarts === 0 && !status?.lastState?.terminated && !status?.state?.terminated;
  if (!running && !firstStart) return undefined;
  return { id: `${pod.metadata?.uid}/${restarts}/${address}`, running };
}

interface Probe {
  id: string;
  up: boolean;
  /** The probe's loop ended without an answer. */
  gaveUp: boolean;
  /** Asked again once the kubelet reported the container running, after giving up before. */
  again: boolean;
}

/**
 * Learns that a sandbox's sandboxd is up as soon as it is, not a kubelet status write (or relist,
 * about a second on a real node) later: from when its Pod has an address (see `probeStart`),
 * sandboxd's /healthz is asked directly, at the address the API uses, often at first and less
 * often the longer it takes (`probeWait`), beside the reconciles rather than inside one; `wake`
 * reconciles the sandbox when it answers. The tries reach sandboxd alone: no apiserver request.
 * One probe per container start, and once more when the kubelet reports it running after the
 * probe gave up; whatever happens, the Pod's own Ready condition still comes.
 */
export class SandboxdReadiness {
  readonly #locator: SandboxdLocator;
  readonly #wake: (key: string) => void;
  readonly #log: Logger;
  /** By sandbox key: the container start probed, and how its probe went. */
  readonly #seen = new Map<string, Probe>();
  #probing = 0;

  constructor(o: { locator: SandboxdLocator; wake: (key: string) => void; logger: Logger }) {
    this.#locator = o.locator;
    this.#wake = o.wake;
    this.#log = o.logger;
  }

  /** Whether sandboxd of this container start answered; starts a probe the first time asked. */
  answered(key: string, pod: V1Pod): boolean {
    const start = probeStart(pod, this.#locator.addressOf(pod));
    if (!start) return false;
    const seen = this.#seen.get(key);
    if (seen?.id === start.id) {
      if (seen.up || !seen.gaveUp || seen.again || !start.running) return seen.up;
      seen.again = true;
      seen.gaveUp = false;
      void this.#probe(key, pod, seen);
      return false;
    }
    const entry: Probe = { id: start.id, up: false, gaveUp: false, again: false };
    this.#seen.set(key, entry);
    void this.#probe(key, pod, entry);
    return false;
  }

  /** Forgets a sandbox (deleted). */
  forget(key: string): void {
    this.#seen.delete(key);
  }

  async #probe(key: string, pod: V1Pod, entry: Probe): Promise<void> {
    const client = await this.#locator.forPod(pod).catch(() => undefined);
    if (!client) return;
    this.#probing++;
    try {
      const t0 = performance.now();
      for (;;) {
        if (this.#seen.get(key) !== entry) return; // a newer start is being probed, or the sandbox went
        if (await client.health(AbortSignal.timeout(TRY_TIMEOUT_MS)).catch(() => false)) {
          entry.up = true;
          this.#wake(key);
          return;
        }
        const wait = probeWait(performance.now() - t0, this.#probing);
        if (wait === undefined) break;
        await new Promise((r) => setTimeout(r, wait));
      }
    } finally {
      this.#probing--;
    }
    entry.gaveUp = true;
    this.#log.debug({ key }, 'sandboxd did not answer the direct check; waiting for the Pod to be Ready');
  }
}
