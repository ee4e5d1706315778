import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Reconcile } from '../kube/index.ts';

const PHASES = ['Pending', 'Creating', 'Running', 'Stopped', 'Error'] as const;

/**
 * The operator's Prometheus metrics in a registry of its own: reconciles by controller and
 * result, their duration and errors, the work queue's depth and sandboxes by phase. Labels
 * are the controller, the result and the phase only: never a sandbox or a user.
 */
export class OperatorMetrics {
  readonly registry = new Registry();
  readonly #reconciles: Counter<'controller' | 'result'>;
  readonly #errors: Counter<'controller'>;
  readonly #duration: Histogram<'controller'>;

  constructor(
    sources: { queueDepth: () => number; phases: () => readonly (string | undefined)[] },
    opts: { defaultMetrics?: boolean } = {},
  ) {
    const registers = [this.registry];
    this.#reconciles = new Counter({
      name: 'svc_reconcile_total',
      help: 'Reconciles by controller and result (ok, requeue, error)',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.#errors = new Counter({
      name: 'svc_reconcile_errors_total',
      help: 'Reconciles that failed and were retried with backoff',
      labelNames: ['controller'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'svc_reconcile_duration_seconds',
      help: 'Wall-clock time of one reconcile',
      labelNames: ['controller'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    new Gauge({
      name: 'svc_workqueue_depth',
      help: 'Keys waiting or being reconciled',
      labelNames: ['controller'],
      registers,
      collect() {
        this.set({ controller: 'sandbox' }, sources.queueDepth());
      },
    });
    new Gauge({
      name: 'svc_sandboxes',
      help: 'Sandboxes by status.phase (Pending when the operator has not written one yet)',
      labelNames: ['phase'],
      registers,
      collect() {
        const counts = new Map<string, number>(PHASES.map((p) => [p, 0]));
        for (const phase of sources.phases())
          counts.set(phase ?? 'Pending', (counts.get(phase ?? 'Pending') ?? 0) + 1);
        for (const [phase, n] of counts) this.set({ phase }, n);
      },
    });
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** `reconcile`, counted and timed under `controller`. */
  instrument(controller: string, reconcile: Reconcile): Reconcile {
    return async (key, log) => {
      const end = this.#duration.startTimer({ controller });
      try {
        const after = await reconcile(key, log);
        this.#reconciles.inc({ controller, result: typeof after === 'number' ? 'requeue' : 'ok' });
        return after;
      } catch (err) {
        this.#reconciles.inc({ controller, result: 'error' });
        this.#errors.inc({ controller });
        throw err;
      } finally {
        end();
      }
    };
  }
}
