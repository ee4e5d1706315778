import type { V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Annotations, SandboxPod } from '../../core/index.ts';
import type { SandboxdLocator } from '../../kube/index.ts';

/** The waits between a probe's tries: short first (sandboxd listens in milliseconds). */
const BACKOFF_MS = [5, 10, 20, 40, 80, 160, 320];

/**
 * Learns that a sandbox's sandboxd is up as soon as it is, not a kubelet probe period later:
 * once its container runs, sandboxd's /healthz is asked directly (the address the API
 * uses), a few times over about half a second, beside the reconciles rather than inside
 * one, and `wake` reconciles the sandbox when it answers. One probe per container start;
 * when it gives up, the Pod's own Ready condition still comes.
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

  /** Whether sandboxd of this container start answered; starts a probe the first time asked. */
  answered(key: string, pod: V1Pod): boolean {
    const status = pod.status?.containerStatuses?.find((c) => c.name === SandboxPod.container);
    const started = status?.state?.running?.startedAt;
    const address = pod.metadata?.annotations?.[Annotations.sandboxdAddress] ?? pod.status?.podIP;
    // No address yet: the Pod's update that brings one asks again.
    if (!started || !address) return false;
    const start = `${pod.metadata?.uid}/${status.restartCount}/${new Date(started).toISOString()}/${address}`;
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
