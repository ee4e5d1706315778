import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Reconcile } from '../kube/index.ts';

const PHASES = ['Pending', 'Creating', 'Running', 'Stopped', 'Error'] as const;

/** What the leading replica reads its gauges from: its controllers' queues and its Sandbox cache. */
export interface OperatorSources {
  controllers: () => readonly { name: string; depth: number }[];
  phases: () => readonly (string | undefined)[];
  /** Each sandbox's phase and template (`Kind/name`), for `svc_sandboxes_by_template`. */
  templates?: () => readonly { phase: string | undefined; template: string }[];
}

/**
 * The operator's Prometheus metrics in a registry of its own: whether this replica leads,
 * reconciles by controller and result, their duration and errors, the work queue's depth and
 * sandboxes by phase. Labels are the controller, the result and the phase only: never a
 * sandbox or a user.
 *
 * It exists before leader election, so a standby replica serves `/metrics` too
 * (`svc_operator_leader 0` and the process metrics); the queue and phase gauges appear once
 * `observe` hands it the leader's sources, so a standby never reports sandboxes twice.
 */
export class OperatorMetrics {
  readonly registry = new Registry();
  readonly #leader: Gauge;
  readonly #reconciles: Counter<'controller' | 'result'>;
  readonly #errors: Counter<'controller'>;
  readonly #duration: Histogram<'controller'>;
  readonly #requests: Counter<'component' | 'verb' | 'resource'>;
  readonly #cpu: Histogram<'template'>;
  readonly #memory: Histogram<'template'>;
  #sources: OperatorSources | undefined;

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.#leader = new Gauge({
      name: 'svc_operator_leader',
      help: '1 while this replica holds the operator Lease, 0 while it stands by',
      registers,
    });
    this.#leader.set(0);
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
    this.#requests = new Counter({
      name: 'svc_kube_requests_total',
      help: 'Requests to the Kubernetes apiserver by component, verb and resource (watches count when opened)',
      labelNames: ['component', 'verb', 'resource'],
      registers,
    });
    const depth = new Gauge({
      name: 'svc_workqueue_depth',
      help: 'Keys waiting or being reconciled (leader only)',
      labelNames: ['controller'],
      registers,
      collect: () => {
        for (const c of this.#sources?.controllers() ?? []) depth.set({ controller: c.name }, c.depth);
      },
    });
    const sandboxes = new Gauge({
      name: 'svc_sandboxes',
      help: 'Sandboxes by status.phase (Pending when the operator has not written one yet; leader only)',
      labelNames: ['phase'],
      registers,
      collect: () => {
        if (!this.#sources) return;
        const counts = new Map<string, number>(PHASES.map((p) => [p, 0]));
        for (const phase of this.#sources.phases())
          counts.set(phase ?? 'Pending', (counts.get(phase ?? 'Pending') ?? 0) + 1);
        for (const [phase, n] of counts) sandboxes.set({ phase }, n);
      },
    });
    const byTemplate = new Gauge({
      name: 'svc_sandboxes_by_template',
      help: 'Sandboxes by status.phase and template (Kind/name; leader only)',
      labelNames: ['phase', 'template'],
      registers,
      collect: () => {
        byTemplate.reset();
        for (const { phase, template } of this.#sources?.templates?.() ?? [])
          byTemplate.inc({ phase: phase ?? 'Pending', template });
      },
    });
    // Usage by template only: a sandbox or a user as a label would grow without bound.
    this.#cpu = new Histogram({
      name: 'svc_sandbox_cpu_cores',
      help: 'CPU of running sandboxes in cores, one observation per sandbox every 30 s (leader only)',
      labelNames: ['template'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8],
      registers,
    });
    this.#memory = new Histogram({
      name: 'svc_sandbox_memory_bytes',
      help: 'Working set of running sandboxes, one observation per sandbox every 30 s (leader only)',
      labelNames: ['template'],
      buckets: [16, 64, 128, 256, 512, 1024, 2048, 4096, 8192].map((m) => m * 1024 * 1024),
      registers,
    });
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** One request of `component` to the apiserver (see `countingKubeConfig`). */
  kubeRequest(component: string, verb: string, resource: string): void {
    this.#requests.inc({ component, verb, resource });
  }

  /** One sample of a running sandbox's usage (see `usage-metrics.ts`). */
  observeUsage(template: string, cores: number, workingSetBytes: number): void {
    this.#cpu.observe({ template }, cores);
    this.#memory.observe({ template }, workingSetBytes);
  }

  /** Leadership won (1) or lost or given up (0). */
  setLeader(leading: boolean): void {
    this.#leader.set(leading ? 1 : 0);
  }

  /** The leader's queue and cache, read at each scrape from now on; `undefined` forgets them. */
  observe(sources: OperatorSources | undefined): void {
    this.#sources = sources;
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
