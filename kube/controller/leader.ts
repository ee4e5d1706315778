import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { isStatus } from './informer.ts';

interface Lease {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export interface LeaderElectionOptions {
  kc: KubeConfig;
  logger: Logger;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds?: number;
}

/**
 * Leader election on a coordination.k8s.io Lease, in client-go's shape: take the Lease
 * when it is free or expired, renew it every third of its duration, and give up leading
 * (calling `onLost`) when a renewal has not succeeded within the duration. Writes carry
 * the resourceVersion read, so two candidates never both win.
 *
 * The Lease goes through the generic object client: client-node's typed model writes
 * MicroTime with millisecond precision, which the apiserver refuses.
 */
export class LeaderElector {
  readonly #o: LeaderElectionOptions;
  readonly #api: CustomObjectsApi;
  readonly #durationMs: number;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(opts: LeaderElectionOptions) {
    this.#o = opts;
    this.#api = opts.kc.makeApiClient(CustomObjectsApi);
    this.#durationMs = (opts.leaseDurationSeconds ?? 15) * 1000;
  }

  /** Resolves once this candidate leads; then keeps renewing until stopped or lost. */
  async run(onLost: () => void): Promise<void> {
    for (;;) {
      if (this.#stopped) throw new Error('leader election stopped');
      if (await this.#tryAcquireOrRenew().catch(() => false)) break;
      await new Promise((r) => setTimeout(r, Math.min(2000, this.#durationMs / 3)));
    }
    this.#o.logger.info({ lease: this.#o.name, identity: this.#o.identity }, 'became leader');
    let lastRenew = Date.now();
    this.#timer = setInterval(() => {
      void this.#tryAcquireOrRenew()
        .catch(() => false)
        .then((ok) => {
          if (ok) lastRenew = Date.now();
          else if (Date.now() - lastRenew > this.#durationMs && !this.#stopped) {
            this.#o.logger.error({ lease: this.#o.name }, 'lost leadership');
            this.stop();
            onLost();
          }
        });
    }, this.#durationMs / 3);
  }

  /** Stops renewing. The Lease is left to expire unless `release` follows. */
  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }

  /**
   * Gives the Lease up when this candidate still holds it, as client-go's ReleaseOnCancel
   * does: a successor takes over at its next try instead of waiting out the duration, so a
   * rolling update hands over in seconds. Call after `stop` and after the work is drained.
   * Written with the resourceVersion read, so a Lease someone else took is never touched.
   */
  async release(): Promise<boolean> {
    const { name, identity } = this.#o;
    try {
      const lease = (await this.#api.getNamespacedCustomObject(this.#ref())) as Lease;
      if (lease.spec.holderIdentity !== identity) return false;
      await this.#replace(lease, {
        ...lease.spec,
        holderIdentity: '',
        leaseDurationSeconds: 1,
        renewTime: microTime(new Date()),
      });
      this.#o.logger.info({ lease: name, identity }, 'released leadership');
      return true;
    } catch (err) {
      // Not fatal: the Lease then expires as it would have without the release.
      this.#o.logger.warn({ err, lease: name }, 'could not release the Lease; it will expire');
      return false;
    }
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.#o;
    const ref = this.#ref();
    const now = microTime(new Date());
    const seconds = this.#durationMs / 1000;
    let lease: Lease;
    try {
      lease = (await this.#api.getNamespacedCustomObject(ref)) as Lease;
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
      await this.#api.createNamespacedCustomObject({
        ...ref,
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace },
          spec: {
            holderIdentity: identity,
            leaseDurationSeconds: seconds,
            acquireTime: now,
            renewTime: now,
            leaseTransitions: 0,
          },
        },
      });
      return true;
    }
    const held = lease.spec.holderIdentity;
    const renewed = lease.spec.renewTime ? Date.parse(lease.spec.renewTime) : 0;
    const expired = renewed + (lease.spec.leaseDurationSeconds ?? seconds) * 1000 < Date.now();
    if (held && held !== identity && !expired) return false;
    const taking = held !== identity;
    await this.#replace(lease, {
      holderIdentity: identity,
      leaseDurationSeconds: seconds,
      acquireTime: taking ? now : lease.spec.acquireTime,
      renewTime: now,
      leaseTransitions: (lease.spec.leaseTransitions ?? 0) + (taking ? 1 : 0),
    });
    return true;
  }

  #ref() {
    const { namespace, name } = this.#o;
    return { group: 'coordination.k8s.io', version: 'v1', namespace, plural: 'leases', name };
  }

  /** Writes `spec` over the Lease as read: a Lease changed since then is refused (409). */
  async #replace(lease: Lease, spec: Lease['spec']): Promise<void> {
    const { namespace, name } = this.#o;
    await this.#api.replaceNamespacedCustomObject({
      ...this.#ref(),
      body: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace, resourceVersion: lease.metadata.resourceVersion },
        spec,
      },
    });
  }
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits. */
function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
