import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import type { Outcome } from './gateway.ts';

/**
 * The gateway's metrics, by template and decision or direction: never by sandbox, so the
 * series stay as few as the templates (each sandbox's own record is the audit trail).
 */
export class EgressMetrics {
  readonly registry = new Registry();
  readonly #connections: Counter<'template' | 'decision'>;
  readonly #bytes: Counter<'template' | 'direction'>;

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.#connections = new Counter({
      name: 'svc_egress_connections_total',
      help: 'Connections and plain HTTP requests the egress gateway decided on, by template and decision',
      labelNames: ['template', 'decision'],
      registers,
    });
    this.#bytes = new Counter({
      name: 'svc_egress_bytes_total',
      help: 'Bytes through the egress gateway, by template and direction (out: to the host, in: back)',
      labelNames: ['template', 'direction'],
      registers,
    });
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  observe(outcome: Outcome): void {
    // A source that is no sandbox has no template: counted apart, never dropped.
    const template = outcome.asker?.template ?? '(none)';
    this.#connections.inc({ template, decision: outcome.allowed ? 'allowed' : 'denied' });
    if (outcome.bytesOut > 0) this.#bytes.inc({ template, direction: 'out' }, outcome.bytesOut);
    if (outcome.bytesIn > 0) this.#bytes.inc({ template, direction: 'in' }, outcome.bytesIn);
  }
}
