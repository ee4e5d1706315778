// `svc operator`: the Sandbox controller. One replica leads (a Lease in the service's
// namespace); the others wait to take over.
import { hostname } from 'node:os';
import { pino } from 'pino';
import { z } from 'zod';
import { OperatorMetrics, startOperator } from '../operator/index.ts';
import { createTracing, serveMetrics } from '../telemetry/index.ts';
import { booleanFlag, listenAddress, loadKubeConfig, parseConfig, rawConfig } from './config.ts';

const Config = z.object({
  kubeconfig: z.string().optional(),
  'service-namespace': z.string().default('svc-system'),
  /** Watch one namespace only (empty: all). */
  'watch-namespace': z.string().optional(),
  identity: z.string().default(process.env.POD_NAME ?? hostname()),
  'sandboxd-image': z.string().default('ghcr.io/svc-dev/svc:latest'),
  'sandboxd-path': z.string().default('/usr/local/bin/sandboxd'),
  'networking.previewDomain': z.string().optional(),
  'networking.portForwardIngressClass': z.string().default('nginx'),
  'networking.ingressNamespace': z.string().optional(),
  'api-pod-labels': z
    .string()
    .default('app.kubernetes.io/name=svc,app.kubernetes.io/component=api')
    .transform((s) => Object.fromEntries(s.split(',').map((kv) => kv.split('=', 2) as [string, string]))),
  'snapshot-wait-seconds': z.coerce.number().int().positive().default(300),
  'max-restarts': z.coerce.number().int().positive().default(5),
  'optional.agentMemorySidecar.enabled': booleanFlag,
  'optional.agentMemorySidecar.image': z.string().default('ghcr.io/svc-dev/agent-memory:latest'),
  /** The sidecar's command, space-separated; empty: the image's own. */
  'optional.agentMemorySidecar.command': z.string().default(''),
  'lease-duration-seconds': z.coerce.number().int().positive().default(15),
  'log-level': z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  /** OTLP/HTTP collector for reconcile spans; none: no spans leave the process. */
  'otlp-endpoint': z.url().optional(),
  /** Where `/metrics` is served (e.g. `0.0.0.0:8081` in a cluster); unset: not served. */
  'metrics-listen': listenAddress.optional(),
  /**
   * devnode mode, for `make dev` and the tests alone: devnode's address annotation on a Pod
   * is where its sandboxd listens. Never in a cluster (the chart does not set it).
   */
  devnode: booleanFlag,
});

export async function main(argv: string[]): Promise<number> {
  const raw = rawConfig(argv, Object.keys(Config.shape));
  // OpenTelemetry's standard variable, when neither the flag nor SVC_OTLP_ENDPOINT is set.
  raw['otlp-endpoint'] ??= process.env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  const config = parseConfig(Config, raw, 'operator');
  if (!config) return 2;
  const logger = pino({ level: config['log-level'], base: { component: 'operator' } });
  const tracing = createTracing({ serviceName: 'svc-operator', otlpEndpoint: config['otlp-endpoint'] });
  const lost = new AbortController();
  // Served before the Lease is won: a standby replica answers /metrics (svc_operator_leader 0).
  const metrics = new OperatorMetrics();
  const served = config['metrics-listen']
    ? await serveMetrics(metrics.registry, config['metrics-listen'])
    : undefined;
  if (served) logger.info({ url: `${served.url}/metrics` }, 'serving metrics');
  const operator = await startOperator({
    kc: loadKubeConfig(config.kubeconfig),
    logger,
    namespace: config['watch-namespace'] || undefined,
    leaseNamespace: config['service-namespace'],
    identity: config.identity,
    leaseDurationSeconds: config['lease-duration-seconds'],
    onLostLeadership: () => lost.abort(),
    tracer: tracing.tracer,
    metrics,
    settings: {
      sandboxdImage: config['sandboxd-image'],
      sandboxdPath: config['sandboxd-path'],
      previewDomain: config['networking.previewDomain'] || undefined,
      ingressClass: config['networking.portForwardIngressClass'],
      ingressNamespace: config['networking.ingressNamespace'],
      apiNamespace: config['service-namespace'],
      apiPodLabels: config['api-pod-labels'],
      snapshotWaitSeconds: config['snapshot-wait-seconds'],
      maxRestarts: config['max-restarts'],
      devnode: config.devnode,
      ...(config['optional.agentMemorySidecar.enabled']
        ? {
            agentMemorySidecar: {
              image: config['optional.agentMemorySidecar.image'],
              command: config['optional.agentMemorySidecar.command'].split(' ').filter(Boolean),
            },
          }
        : {}),
    },
  });
  const reason = await new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
    lost.signal.addEventListener('abort', () => resolve('lost leadership'));
  });
  logger.info({ reason }, 'operator stopping');
  await operator.stop();
  await served?.close();
  await tracing.shutdown();
  // Losing the Lease ends the process, so a supervisor restarts it as a fresh candidate.
  return reason === 'lost leadership' ? 1 : 0;
}
