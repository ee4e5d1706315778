// `svc webhook`: the admission webhook over TLS. The certificate comes from cert-manager
// in a cluster and from the harness's CA in dev and tests.
import { readFile } from 'node:fs/promises';
import { pino } from 'pino';
import { z } from 'zod';
import { Policy } from '../core/index.ts';
import {
  Governance,
  NamespaceGate,
  PolicyStore,
  QuotaLedger,
  SecretAccessReviewer,
  SnapshotOwners,
} from '../kube/index.ts';
import { serveMetrics } from '../telemetry/index.ts';
import { WebhookMetrics, sandboxAdmission, startWebhook, warmPoolAdmission } from '../webhook/index.ts';
import { booleanFlag, listenAddress, loadKubeConfig, parseConfig, rawConfig } from './config.ts';

const Config = z.object({
  listen: listenAddress.default({ host: '0.0.0.0', port: 9443 }),
  'tls-cert-file': z.string().default('/etc/svc/webhook-tls/tls.crt'),
  'tls-key-file': z.string().default('/etc/svc/webhook-tls/tls.key'),
  'api-service-account': z.string().default('system:serviceaccount:svc-system:svc-api'),
  kubeconfig: z.string().optional(),
  'service-namespace': z.string().default('svc-system'),
  'log-level': z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
  /** Where `/metrics` is served over plain HTTP (e.g. `0.0.0.0:8081`); unset: not served. */
  'metrics-listen': listenAddress.optional(),
  /** The nodes run Pods with `hostUsers: false` (user namespaces); off: such templates are refused. */
  'node.userNamespaces': booleanFlag,
});

export async function main(argv: string[]): Promise<number> {
  const config = parseConfig(Config, rawConfig(argv, Object.keys(Config.shape)), 'webhook');
  if (!config) return 2;
  const logger = pino({ level: config['log-level'], base: { component: 'webhook' } });
  const kc = loadKubeConfig(config.kubeconfig);
  const store = new PolicyStore(kc, config['service-namespace'], (raw) => Policy.parse(raw));
  const governance = new Governance(kc, store, new QuotaLedger(kc, { home: config['service-namespace'] }), {
    userNamespaces: config['node.userNamespaces'],
  });
  const metrics = new WebhookMetrics();
  const webhook = await startWebhook({
    tls: {
      cert: await readFile(config['tls-cert-file'], 'utf8'),
      key: await readFile(config['tls-key-file'], 'utf8'),
    },
    listen: config.listen,
    logger,
    apiServiceAccount: config['api-service-account'],
    admitWarmPool: warmPoolAdmission(kc, governance),
    ...sandboxAdmission({
      governance,
      namespaces: new NamespaceGate(kc, config['service-namespace']),
      reviewer: new SecretAccessReviewer(kc),
      snapshots: new SnapshotOwners(kc),
      apiServiceAccount: config['api-service-account'],
    }),
    metrics,
  });
  const served = config['metrics-listen']
    ? await serveMetrics(metrics.registry, config['metrics-listen'])
    : undefined;
  logger.info({ port: webhook.port }, 'svc webhook listening');
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await webhook.close();
  await served?.close();
  return 0;
}
