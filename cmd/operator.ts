// `svc operator`: the Sandbox controller. One replica leads (a Lease in the service's
// namespace); the others wait to take over.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { pino } from 'pino';
import { z } from 'zod';
import { DEFAULT_EGRESS, OperatorMetrics, startOperator } from '../operator/index.ts';
import { createTracing, serveMetrics } from '../telemetry/index.ts';
import {
  booleanFlag,
  listenAddress,
  loadKubeConfig,
  parseConfig,
  rawConfig,
  sandboxNamespaces,
} from './config.ts';

/** `a,b` → `['a', 'b']`, blanks dropped. */
const list = (s: string) =>
  s
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
/** `k=v,k2=v2` → a label map. */
const labels = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((s) => Object.fromEntries(list(s).map((kv) => kv.split('=', 2) as [string, string])));

const Config = z.object({
  kubeconfig: z.string().optional(),
  'service-namespace': z.string().default('svc-system'),
  /**
   * The namespaces whose sandboxes this operator serves, comma-separated (the chart's
   * `sandboxNamespaces`, where it is granted Pods, claims and Secrets): it watches only
   * those. Unset or `*`: every namespace, which needs cluster-wide rights (less safe).
   */
  'sandbox-namespaces': sandboxNamespaces,
  identity: z.string().default(process.env.POD_NAME ?? hostname()),
  'sandboxd-image': z.string().default('ghcr.io/svc-dev/svc:latest'),
  'sandboxd-path': z.string().default('/usr/local/bin/sandboxd'),
  /**
   * initContainer (any runtime), imageVolume (containerd 2.1+, CRI-O 1.31+) or csi (the chart's
   * node plugin sandboxd-csi, any runtime): the last two start no init container.
   */
  'sandboxd-delivery': z.enum(['initContainer', 'imageVolume', 'csi']).default('initContainer'),
  /** With csi: the node plugin's CSI driver name (the chart's CSIDriver). */
  'sandboxd-csi-driver': z.string().default('sandboxd.svc.io'),
  'networking.previewDomain': z.string().optional(),
  'networking.portForwardIngressClass': z.string().default('nginx'),
  'networking.ingressNamespace': z.string().optional(),
  'api-pod-labels': labels('app.kubernetes.io/name=svc,app.kubernetes.io/component=api'),
  /** Its own Pods' labels: sandboxes' NetworkPolicies admit them to sandboxd. */
  'operator-pod-labels': labels('app.kubernetes.io/name=svc,app.kubernetes.io/component=operator'),
  /** The cluster's DNS Pods, the only destination of sandboxes' DNS (docs/install.md). */
  'networking.dnsNamespace': z.string().default(DEFAULT_EGRESS.dns.namespace),
  'networking.dnsPodLabels': labels(
    Object.entries(DEFAULT_EGRESS.dns.podLabels)
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
  ),
  /** IPv4 ranges `egress: internet` leaves out, comma-separated: the cluster's Pod and Service ranges among them. */
  'networking.internetExcept': z
    .string()
    .default(DEFAULT_EGRESS.internetExcept.join(','))
    .transform(list)
    .pipe(z.array(z.cidrv4()).min(1)),
  /**
   * The egress gateway's proxy URL given to `allowlist` sandboxes (the chart's Service, such
   * as http://svc-egress.svc-system.svc:3128); unset: they reach only DNS.
   */
  'networking.egressGateway.url': z.url({ protocol: /^http$/ }).optional(),
  'networking.egressGateway.port': z.coerce.number().int().min(1).max(65535).default(3128),
  'networking.egressGateway.podLabels': labels(
    'app.kubernetes.io/name=svc,app.kubernetes.io/component=egress',
  ),
  'snapshot-wait-seconds': z.coerce.number().int().positive().default(300),
  'max-restarts': z.coerce.number().int().positive().default(5),
  /** sandboxd's buffer of each run's events (docs/api.md, runs), and how long an ended run stays readable. */
  'runs.bufferBytes': z.coerce.number().int().positive().optional(),
  'runs.retentionSeconds': z.coerce.number().int().positive().optional(),
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
  const sandboxdCsi =
    config['sandboxd-delivery'] === 'csi'
      ? await csiDelivery(config['sandboxd-path'], config['sandboxd-csi-driver'])
      : undefined;
  if (sandboxdCsi === null) {
    logger.error(
      { path: config['sandboxd-path'] },
      '--sandboxd-delivery=csi: cannot read --sandboxd-path in this container (it must be the svc image, whose sandboxd the nodes serve)',
    );
    return 2;
  }
  if (sandboxdCsi) logger.info(sandboxdCsi, 'sandboxd delivered by CSI inline volumes');
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
    namespace: config['sandbox-namespaces'],
    leaseNamespace: config['service-namespace'],
    identity: config.identity,
    leaseDurationSeconds: config['lease-duration-seconds'],
    onLostLeadership: () => lost.abort(),
    tracer: tracing.tracer,
    metrics,
    settings: {
      sandboxdImage: config['sandboxd-image'],
      sandboxdPath: config['sandboxd-path'],
      sandboxdDelivery: config['sandboxd-delivery'],
      ...(sandboxdCsi ? { sandboxdCsi } : {}),
      previewDomain: config['networking.previewDomain'] || undefined,
      ingressClass: config['networking.portForwardIngressClass'],
      ingressNamespace: config['networking.ingressNamespace'],
      egress: {
        dns: { namespace: config['networking.dnsNamespace'], podLabels: config['networking.dnsPodLabels'] },
        internetExcept: config['networking.internetExcept'],
        ...(config['networking.egressGateway.url']
          ? {
              gateway: {
                proxyUrl: config['networking.egressGateway.url'],
                port: config['networking.egressGateway.port'],
                podLabels: config['networking.egressGateway.podLabels'],
              },
            }
          : {}),
      },
      apiNamespace: config['service-namespace'],
      apiPodLabels: config['api-pod-labels'],
      operatorPodLabels: config['operator-pod-labels'],
      snapshotWaitSeconds: config['snapshot-wait-seconds'],
      maxRestarts: config['max-restarts'],
      // Unset: sandboxd's defaults, and no new variable in the Pods (no Pod is recreated).
      runs: {
        ...(config['runs.bufferBytes'] ? { bufferBytes: config['runs.bufferBytes'] } : {}),
        ...(config['runs.retentionSeconds'] ? { retentionSeconds: config['runs.retentionSeconds'] } : {}),
      },
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

/**
 * `--sandboxd-delivery=csi`: the digest Pods ask the node plugin for is that of the sandboxd in
 * the operator's own image (the chart runs the operator and the plugin from one image), read
 * once here; null when the file cannot be read.
 */
async function csiDelivery(path: string, driver: string): Promise<{ driver: string; sha256: string } | null> {
  const bytes = await readFile(path).catch(() => null);
  if (!bytes) return null;
  return { driver, sha256: createHash('sha256').update(bytes).digest('hex') };
}
