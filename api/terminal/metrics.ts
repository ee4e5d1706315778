import { Counter, Gauge, type Registry } from 'prom-client';

/** How a terminal session ended, or why it never began: the `outcome` label. */
export type TerminalOutcome = 'completed' | 'failed' | 'closed' | 'throttled' | 'error';

/**
 * `svc_terminal_sessions` (open now) and `svc_terminal_sessions_total{template,outcome}`
 * (ended or refused at the cap). The HTTP app and the upgrade handler both ask for them, so
 * they are found in the registry when already there instead of registered twice.
 */
export class TerminalMetrics {
  readonly open: Gauge;
  readonly total: Counter<'template' | 'outcome'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.open =
      (registry.getSingleMetric('svc_terminal_sessions') as Gauge | undefined) ??
      new Gauge({
        name: 'svc_terminal_sessions',
        help: 'Terminal sessions open through this API',
        registers,
      });
    this.total =
      (registry.getSingleMetric('svc_terminal_sessions_total') as
        Counter<'template' | 'outcome'> | undefined) ??
      new Counter({
        name: 'svc_terminal_sessions_total',
        help: 'Terminal sessions by outcome: completed, failed (non-zero exit), closed (by the client), throttled, error',
        labelNames: ['template', 'outcome'] as const,
        registers,
      });
  }
}
