import type { V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { SandboxPod } from '../../core/index.ts';
import type { SandboxdLocator } from '../../kube/index.ts';

/**
 * The waits between a probe's tries: every 5 ms for the first 200 ms, when sandboxd comes up
 * (a try it is not listening for fails at once, and a 10–40 ms gap there cost a cold start
 * most of a gap after sandboxd listened), then backing off to half a second in all.
 */
const BACKOFF_MS = [...Array<number>(40).fill(5), 20, 40, 80, 160];

/**
 * Learns that a sandbox's sandboxd is up as soon as it is, not a kubelet probe period later:
 * once its container is starting (see `answered`), sandboxd's /healthz is asked directly
 * (the address the API uses), often at first, over about half a second, beside the
 * reconciles rather than inside one, and `wake` reconciles the sandbox when it answers. One
 * probe per container start; when it gives up, the Pod's own Ready condition still comes.
 */
export class SandboxdReadiness {
  readonly #locator: SandboxdLocator;
  readonly #wake: (key: string) => void;
  readonly #log: Logger;
  /** By sandbox key: the container start probed, and whether its sandboxd answered. */
  readonly #seen = new Map<string, { start: string; up: boolean }>();

  constructor(o: { locator: SandboxdLocator; wake: (key: string) => void; logger: Logger }) {
    this.#locator = o.locator;
    this.#wake = o.wake;
    this.#log = o.logger;
  }

  /**
   * Whether sandboxd of this container start answered; starts a probe the first time asked.
   * A first start is asked about from when the Pod's init containers are done (phase
   * `Running`, the container still `waiting`): its own start is reported a status write
   * later, by when sandboxd often listens already. A restart, once it runs (a container
   * waiting after it ran is down, whatever its sandboxd answered before).
   */
  answered(key: string, pod: V1Pod): boolean {
    const status = pod.status?.containerStatuses?.find((c) => c.name === SandboxPod.container);
    const address = this.#locator.addressOf(pod);
    const restarts = status?.restartCount ?? 0;
    const firstStart = !!status?.state?.waiting && !status.lastState?.terminated && restarts === 0;
    // Not started yet, or no address: the Pod's update that brings them asks again.
    if (pod.status?.phase !== 'Running' || !(status?.state?.running || firstStart) || !address) return false;
    const start = `${pod.metadata?.uid}/${restarts}/${address}`;
    const seen = this.#seen.get(key);
    if (seen?.start === start) return seen.up;
    const entry = { start, up: false };
    this.#seen.set(key, entry);
    void this.#probe(key, pod, entry);
    return false;
  }

  /** Forgets a sandbox (deleted). */
  forget(key: string): void {
    this.#seen.delete(key);
  }

  async #probe(key: string, pod: V1Pod, entry: { start: string; up: boolean }): Promise<void> {
    const client = await this.#locator.forPod(pod).catch(() => undefined);
    if (!client) return;
    for (const wait of [0, ...BACKOFF_MS]) {
      if (wait) await new Promise((r) => setTimeout(r, wait));
      if (this.#seen.get(key) !== entry) return; // a newer start is being probed
      if (await client.health().catch(() => false)) {
        entry.up = true;
        this.#wake(key);
        return;
      }
    }
    this.#log.debug({ key }, 'sandboxd did not answer the direct check; waiting for the Pod to be Ready');
  }
}
