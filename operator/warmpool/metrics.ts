import { Counter, Gauge, type Registry } from 'prom-client';

/** `svc_warmpool_*`: ready members per pool, and claims by outcome (hit: a member; miss: cold). */
export class WarmPoolMetrics {
  readonly #ready: Gauge<'namespace' | 'pool'>;
  readonly #claims: Counter<'namespace' | 'pool' | 'outcome'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#ready = new Gauge({
      name: 'svc_warmpool_ready',
      help: 'Members of a SandboxWarmPool ready to be claimed',
      labelNames: ['namespace', 'pool'],
      registers,
    });
    this.#claims = new Counter({
      name: 'svc_warmpool_claims_total',
      help: 'Sandboxes that matched a SandboxWarmPool: hit (claimed a ready member) or miss (started cold)',
      labelNames: ['namespace', 'pool', 'outcome'],
      registers,
    });
  }

  ready(namespace: string, pool: string, n: number | undefined): void {
    if (n === undefined) this.#ready.remove({ namespace, pool });
    else this.#ready.set({ namespace, pool }, n);
  }

  claim(namespace: string, pool: string, outcome: 'hit' | 'miss'): void {
    this.#claims.inc({ namespace, pool, outcome });
  }
}
