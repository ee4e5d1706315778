import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Outcomes a configure or invoke call ends with; the only values of the `outcome` label.
 * `detached`: a run answered 202 and left to go on without its caller (its end is sandboxd's).
 */
export type Outcome =
  'completed' | 'failed' | 'canceled' | 'timeout' | 'denied' | 'throttled' | 'error' | 'detached';

// Agent runs last from tens of milliseconds to the longest invoke timeout (30 min).
const RUN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 1800];

/**
 * The API's Prometheus metrics in a registry of their own. Labels are only `template` and
 * `outcome`: never a user or sandbox id, so cardinality stays bounded.
 */
export class ApiMetrics {
  readonly registry = new Registry();
  readonly invokeRequests: Counter<'template' | 'outcome'>;
  readonly invokeDuration: Histogram<'template' | 'outcome'>;
  readonly invokeThrottled: Counter<'template' | 'outcome'>;
  readonly configureRequests: Counter<'template' | 'outcome'>;
  readonly configureDuration: Histogram<'template' | 'outcome'>;
  readonly configureThrottled: Counter<'template' | 'outcome'>;
  readonly execRequests: Counter<'template' | 'outcome'>;
  readonly execDuration: Histogram<'template' | 'outcome'>;

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    const labelNames = ['template', 'outcome'] as const;
    const registers = [this.registry];
    this.invokeRequests = new Counter({
      name: 'svc_invoke_requests_total',
      help: 'Invoke calls by outcome',
      labelNames,
      registers,
    });
    this.invokeDuration = new Histogram({
      name: 'svc_invoke_duration_seconds',
      help: 'Wall-clock time of an invoke',
      labelNames,
      buckets: RUN_BUCKETS,
      registers,
    });
    this.invokeThrottled = new Counter({
      name: 'svc_invoke_throttled_total',
      help: 'Invokes refused over maxConcurrentInvokes',
      labelNames,
      registers,
    });
    this.configureRequests = new Counter({
      name: 'svc_configure_requests_total',
      help: 'Configure calls by outcome',
      labelNames,
      registers,
    });
    this.configureDuration = new Histogram({
      name: 'svc_configure_duration_seconds',
      help: 'Wall-clock time of a configure',
      labelNames,
      buckets: RUN_BUCKETS,
      registers,
    });
    this.configureThrottled = new Counter({
      name: 'svc_configure_throttled_total',
      help: 'Configures refused over a limit',
      labelNames,
      registers,
    });
    this.execRequests = new Counter({
      name: 'svc_exec_requests_total',
      help: 'Exec calls by outcome',
      labelNames,
      registers,
    });
    this.execDuration = new Histogram({
      name: 'svc_exec_duration_seconds',
      help: 'Wall-clock time of an exec',
      labelNames,
      buckets: [0.005, 0.01, 0.025, ...RUN_BUCKETS],
      registers,
    });
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** Records one finished call of `kind`. */
  observe(
    kind: 'invoke' | 'configure',
    labels: { template: string; outcome: Outcome },
    seconds: number,
  ): void {
    const [requests, duration, throttled] =
      kind === 'invoke'
        ? [this.invokeRequests, this.invokeDuration, this.invokeThrottled]
        : [this.configureRequests, this.configureDuration, this.configureThrottled];
    requests.inc(labels);
    // A template's throttled series exists from its first call, at 0 until one is refused, so
    // a scrape by any replica shows it and rate() over it starts from 0, not from nothing.
    throttled.inc(
      { template: labels.template, outcome: 'throttled' },
      labels.outcome === 'throttled' ? 1 : 0,
    );
    if (labels.outcome !== 'throttled') duration.observe(labels, seconds);
  }

  /** Records one finished or refused exec (a throttled one counts, without a duration). */
  observeExec(labels: { template: string; outcome: Outcome }, seconds: number): void {
    this.execRequests.inc(labels);
    if (labels.outcome !== 'throttled') this.execDuration.observe(labels, seconds);
  }
}
