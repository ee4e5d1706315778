// `svc api`: the HTTP API. Configuration comes from flags or SVC_* environment variables,
// named after the spec's deployment settings where it names them.
import { pino } from 'pino';
import { Policy } from '../core/index.ts';
import {
  CredentialGate,
  Governance,
  NamespaceGate,
  PolicyStore,
  QuotaLedger,
  SandboxdKeySecret,
  SandboxdLocator,
} from '../kube/index.ts';
import { z } from 'zod';
import {
  ApiKeyStore,
  DEFAULT_PER_USER_CONCURRENCY,
  OIDC_ALGORITHMS,
  OIDC_ALGORITHM_NAMES,
  OidcVerifier,
  SandboxCache,
  SandboxWriter,
  SnapshotWriter,
  PreviewTargets,
  AuditRecorder,
  ApiMetrics,
  UserSecrets,
  NameGate,
  createApp,
  locateAhead,
  serveApi,
  type ApiDeps,
  type OidcAlgorithm,
} from '../api/index.ts';
import { createTracing, serveMetrics } from '../telemetry/index.ts';
import { booleanFlag, listenAddress, loadKubeConfig, parseConfig, rawConfig } from './config.ts';

const Config = z
  .object({
    listen: listenAddress.default({ host: '127.0.0.1', port: 8080 }),
    /** Where `/metrics` is served without credentials (e.g. `0.0.0.0:8081` in a cluster); unset: only admins' `/metrics` on the API's port. */
    'metrics-listen': listenAddress.optional(),
    kubeconfig: z.string().optional(),
    'service-namespace': z.string().default('svc-system'),
    'default-namespace': z.string().default('default'),
    'auth.oidc.issuer': z.url().optional(),
    'auth.oidc.audience': z.string().optional(),
    'auth.oidc.adminGroup': z.string().optional(),
    'auth.oidc.userClaim': z.string().optional(),
    /** Comma-separated signature algorithms tokens may use; asymmetric only (never none or HS*). */
    'auth.oidc.algorithms': z
      .string()
      .optional()
      .transform((v, ctx) => {
        const list = v ? v.split(',').map((a) => a.trim()) : [...OIDC_ALGORITHMS];
        const bad = list.filter((a) => !(OIDC_ALGORITHM_NAMES as readonly string[]).includes(a));
        if (bad.length === 0 && list.length > 0) return list as OidcAlgorithm[];
        ctx.addIssue({
          code: 'custom',
          message: `${bad.join(', ') || 'an empty list'} not allowed: one or more of ${OIDC_ALGORITHM_NAMES.join(', ')} (asymmetric only, never none or HS*)`,
        });
        return z.NEVER;
      }),
    'auth.devAuth': booleanFlag,
    'networking.previewDomain': z.string().optional(),
    /** The built browser console (`make console` writes dist/console); none: no console at `/`. */
    'console.dir': z.string().optional(),
    /** The OIDC client the console signs in as (authorization code + PKCE); default the audience. */
    'console.oidcClientId': z.string().optional(),
    'console.oidcScope': z.string().default('openid profile email'),
    // The spec's planned toggle; accepted only as false so a deployment never believes
    // argv and stdin are being recorded when they are not.
    'audit.includeInvokePayloads': booleanFlag.refine((v) => !v, {
      message: 'is not available in this version: argv and stdin are never recorded; remove the setting',
    }),
    /**
     * The most exec, invoke, configure and file-transfer calls one user may have in flight
     * through one replica; past it 429 with Retry-After.
     */
    'limits.perUserConcurrency': z.coerce.number().int().min(1).default(DEFAULT_PER_USER_CONCURRENCY),
    'status-wait-seconds': z.coerce.number().positive().default(60),
    /** How often a sandbox's usage stream (`GET /sandboxes/{id}/usage`, SSE) sends its figures. */
    'usage-interval-seconds': z.coerce.number().positive().default(2),
    /** On SIGTERM: how long requests in flight (invoke streams too) may finish before they are cut. */
    'shutdown-grace-seconds': z.coerce.number().min(0).default(25),
    'log-level': z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
    /** OTLP/HTTP collector for spans; none: no spans leave the process. */
    'otlp-endpoint': z.url().optional(),
    /**
     * devnode mode, for `make dev` and the tests alone: the addresses devnode records on
     * Services and Pods are where previews and sandboxd are reached. Never in a cluster
     * (the chart does not set it): there a Service's ClusterIP and a Pod's IP are.
     */
    devnode: booleanFlag,
    /** The nodes run Pods with `hostUsers: false` (user namespaces); off: such templates are refused. */
    'node.userNamespaces': booleanFlag,
  })
  .refine((c) => !c['auth.oidc.issuer'] || c['auth.oidc.audience'], {
    path: ['auth.oidc.audience'],
    message: 'required when auth.oidc.issuer is set',
  });
type Config = z.infer<typeof Config>;

export async function main(argv: string[]): Promise<number> {
  const raw = rawConfig(argv, Object.keys(Config.shape));
  // OpenTelemetry's standard variable, when neither the flag nor SVC_OTLP_ENDPOINT is set.
  raw['otlp-endpoint'] ??= process.env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  const config = parseConfig(Config, raw, 'api');
  if (!config) return 2;
  const server = await startApi(config);
  process.stdout.write(`svc api listening on ${server.address}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await server.close();
  return 0;
}

export async function startApi(config: Config): Promise<{ address: string; close(): Promise<void> }> {
  const logger = pino({ level: config['log-level'], base: { component: 'api' } });
  const kc = loadKubeConfig(config.kubeconfig);
  const issuer = config['auth.oidc.issuer'];
  const oidc = issuer
    ? new OidcVerifier({
        issuer,
        audience: config['auth.oidc.audience']!,
        ...(config['auth.oidc.userClaim'] ? { userClaim: config['auth.oidc.userClaim'] } : {}),
        algorithms: config['auth.oidc.algorithms'],
      })
    : undefined;
  const keys = new ApiKeyStore({ kc, namespace: config['service-namespace'] });
  const cache = new SandboxCache(kc, logger);
  await cache.start();
  // Watched: a policy PUT through any replica reaches this one's next check at once.
  const policies = new PolicyStore(kc, config['service-namespace'], (raw) => Policy.parse(raw));
  await policies.start(logger);
  const tracing = createTracing({ serviceName: 'svc-api', otlpEndpoint: config['otlp-endpoint'] });
  const installationKey = new SandboxdKeySecret({ kc, namespace: config['service-namespace'] }).read;
  const deps: ApiDeps = {
    kc,
    cache,
    sandboxes: new SandboxWriter(kc),
    snapshots: new SnapshotWriter(kc),
    previews: new PreviewTargets(kc, { devnode: config.devnode }),
    audit: new AuditRecorder(kc, logger),
    metrics: new ApiMetrics(),
    governance: new Governance(kc, policies, new QuotaLedger(kc, { home: config['service-namespace'] }), {
      userNamespaces: config['node.userNamespaces'],
    }),
    namespaces: new NamespaceGate(kc, config['service-namespace']),
    credentials: new CredentialGate(kc),
    secrets: new UserSecrets(kc),
    names: new NameGate(kc),
    sandboxd: new SandboxdLocator({ kc, key: installationKey, devnode: config.devnode }),
    installationKey,
    keys,
    auth: { keys, oidc, adminGroup: config['auth.oidc.adminGroup'], devAuth: config['auth.devAuth'] },
    defaultNamespace: config['default-namespace'],
    logger,
    clock: () => new Date(),
    previewDomain: config['networking.previewDomain'],
    statusWaitMs: config['status-wait-seconds'] * 1000,
    usageEveryMs: config['usage-interval-seconds'] * 1000,
    limits: { perUserConcurrency: config['limits.perUserConcurrency'] },
    tracing,
    ...(config['console.dir']
      ? {
          console: {
            dir: config['console.dir'],
            ...(issuer
              ? {
                  oidc: {
                    issuer,
                    clientId: config['console.oidcClientId'] ?? config['auth.oidc.audience']!,
                    scope: config['console.oidcScope'],
                  },
                }
              : {}),
          },
        }
      : {}),
  };
  const ahead = locateAhead(deps);
  const app = createApp(deps);
  const served = await serveApi(app, deps, config.listen);
  const scraped = config['metrics-listen']
    ? await serveMetrics(deps.metrics.registry, config['metrics-listen'])
    : undefined;
  if (scraped) logger.info({ url: `${scraped.url}/metrics` }, 'serving metrics');
  return {
    address: served.url,
    async close() {
      await served.close({ drainMs: config['shutdown-grace-seconds'] * 1000 });
      await scraped?.close();
      ahead();
      await cache.stop();
      await policies.stop();
      await tracing.shutdown();
    },
  };
}
