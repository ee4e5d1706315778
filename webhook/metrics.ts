import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The webhook's Prometheus metrics: admission reviews by webhook (`mutate`, `validate`),
 * operation and verdict, and how long each took. No user, namespace or object name labels.
 */
export class WebhookMetrics {
  readonly registry = new Registry();
  readonly #reviews: Counter<'webhook' | 'operation' | 'allowed'>;
  readonly #duration: Histogram<'webhook'>;

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.#reviews = new Counter({
      name: 'svc_admission_reviews_total',
      help: 'Admission reviews answered, by webhook, operation and verdict',
      labelNames: ['webhook', 'operation', 'allowed'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'svc_admission_duration_seconds',
      help: 'Time to answer an admission review (governance reads the policy and the quota ledger)',
      labelNames: ['webhook'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  observe(webhook: string, operation: string, allowed: boolean, seconds: number): void {
    this.#reviews.inc({ webhook, operation, allowed: String(allowed) });
    this.#duration.observe({ webhook }, seconds);
  }
}
