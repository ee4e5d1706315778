// `svc egress`: the egress gateway of allowlist sandboxes (docs/egress.md).
import { pino } from 'pino';
import { z } from 'zod';
import { EgressMetrics, startEgress } from '../egress/index.ts';
import { serveMetrics } from '../telemetry/index.ts';
import { listenAddress, loadKubeConfig, parseConfig, rawConfig, sandboxNamespaces } from './config.ts';

const Config = z.object({
  listen: listenAddress.default({ host: '0.0.0.0', port: 3128 }),
  kubeconfig: z.string().optional(),
  /**
   * The namespaces whose sandboxes it serves, comma-separated (the chart's
   * `sandboxNamespaces`, where it may list Pods and write Events): a watch in each. Unset or
   * `*`: every namespace, which needs cluster-wide rights.
   */
  'sandbox-namespaces': sandboxNamespaces,
  'log-level': z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  /** Where `/metrics` is served over plain HTTP (e.g. `0.0.0.0:8081`); unset: not served. */
  'metrics-listen': listenAddress.optional(),
  /** Like connections (sandbox, host, port, decision) after a first one are summed over this many seconds. */
  'summary-window-seconds': z.coerce.number().int().min(1).max(3600).default(60),
});

export async function main(argv: string[]): Promise<number> {
  const config = parseConfig(Config, rawConfig(argv, Object.keys(Config.shape)), 'egress');
  if (!config) return 2;
  const logger = pino({ level: config['log-level'], base: { component: 'egress' } });
  const kc = loadKubeConfig(config.kubeconfig);
  const metrics = new EgressMetrics();
  const gateway = await startEgress({
    kc,
    logger,
    listen: config.listen,
    ...(config['sandbox-namespaces'] ? { namespaces: config['sandbox-namespaces'] } : {}),
    summaryWindowMs: config['summary-window-seconds'] * 1000,
    metrics,
  });
  const served = config['metrics-listen']
    ? await serveMetrics(metrics.registry, config['metrics-listen'])
    : undefined;
  logger.info({ port: gateway.port }, 'svc egress listening');
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await gateway.close();
  await served?.close();
  return 0;
}
