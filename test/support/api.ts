import { pino } from 'pino';
import { GROUP, Policy, VERSION } from '../../core/index.ts';
import {
  Governance,
  PolicyStore,
  QuotaLedger,
  SandboxdKeySecret,
  SandboxdLocator,
  CredentialGate,
  NamespaceGate,
  countingKubeConfig,
  type RequestListener,
} from '../../kube/index.ts';
import type { Hono } from 'hono';
import {
  ApiKeyStore,
  DEFAULT_PER_USER_CONCURRENCY,
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
  type ServedApi,
  type ApiDeps,
} from '../../api/index.ts';
import { createTracing, type Tracing } from '../../telemetry/index.ts';
import type { TestNamespace } from './kube.ts';

export interface TestApi {
  app: Hono;
  deps: ApiDeps;
  keys: { admin: string; alice: string; bob: string };
  /** `app.request` with a credential: `{ key }` for X-API-Key, `{ token }` for Bearer. */
  call(
    method: string,
    path: string,
    opts?: { key?: string; token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  /** Serves the app on 127.0.0.1 (for streaming and WebSocket tests); returns its base URL. */
  serve(): Promise<string>;
  close(): Promise<void>;
}

/**
 * The API app in-process against the real apiserver, with keys for an admin, alice and
 * bob stored in the test namespace. Paths are relative to `/api/v1` and get the test's
 * namespace added as `?namespace=` unless they carry one.
 */
export async function startTestApi(
  ns: TestNamespace,
  opts: {
    oidc?: { issuer: string; adminGroup?: string };
    devAuth?: boolean;
    statusWaitMs?: number;
    /** The namespace the gate refuses as the service's own (default `svc-system`). */
    serviceNamespace?: string;
    /** Where the API's spans go (default: a no-op tracer). */
    tracing?: Tracing;
    /** The browser console at `/` (test/console): where it is built, and OIDC sign-in. */
    console?: ApiDeps['console'];
    /** `limits.perUserConcurrency` (default the API's). */
    perUserConcurrency?: number;
    /** devnode mode (devnode's address annotations honoured), as every test stack runs; default true. */
    devnode?: boolean;
    /** Told of every apiserver request the API's sandboxd locator makes (`countingKubeConfig`). */
    locatorRequests?: RequestListener;
    /** Told of every other apiserver request the API makes (its reads and writes). */
    requests?: RequestListener;
  } = {},
): Promise<TestApi> {
  const kc = opts.requests ? countingKubeConfig(ns.kc, opts.requests) : ns.kc;
  const logger = pino({ level: process.env.SVC_TEST_LOG ?? 'silent' });
  const keys = new ApiKeyStore({ kc, namespace: ns.name, cacheMs: 0 });
  const cache = new SandboxCache(kc, logger);
  await cache.start();
  const policies = new PolicyStore(kc, ns.name, (raw) => Policy.parse(raw));
  await policies.start(logger);
  const oidc = opts.oidc
    ? new OidcVerifier({ issuer: opts.oidc.issuer, audience: 'svc', jwksCooldownMs: 0 })
    : undefined;
  const installationKey = new SandboxdKeySecret({ kc: ns.kc, namespace: ns.name, ttlMs: 0 }).read;
  const deps: ApiDeps = {
    kc,
    cache,
    sandboxes: new SandboxWriter(kc),
    snapshots: new SnapshotWriter(kc),
    previews: new PreviewTargets(kc, { devnode: opts.devnode ?? true }),
    audit: new AuditRecorder(kc, logger),
    metrics: new ApiMetrics(),
    governance: new Governance(kc, policies, new QuotaLedger(kc)),
    // The harness keeps the API's keys and policies in the test's namespace, where its
    // sandboxes live too; the namespace refused as the service's own is the one make dev
    // and the chart's default use.
    namespaces: new NamespaceGate(kc, opts.serviceNamespace ?? 'svc-system'),
    credentials: new CredentialGate(kc),
    secrets: new UserSecrets(kc),
    names: new NameGate(kc),
    // The operator of a test (useOperator) keeps its key Secret in the same namespace.
    sandboxd: new SandboxdLocator({
      kc: opts.locatorRequests ? countingKubeConfig(ns.kc, opts.locatorRequests) : ns.kc,
      key: installationKey,
      devnode: opts.devnode ?? true,
    }),
    installationKey,
    keys,
    auth: { keys, oidc, adminGroup: opts.oidc?.adminGroup, devAuth: opts.devAuth ?? true },
    defaultNamespace: ns.name,
    logger,
    clock: () => new Date(),
    statusWaitMs: opts.statusWaitMs ?? 30_000,
    limits: { perUserConcurrency: opts.perUserConcurrency ?? DEFAULT_PER_USER_CONCURRENCY },
    tracing: opts.tracing ?? createTracing({ serviceName: 'svc-api-test' }),
    ...(opts.console ? { console: opts.console } : {}),
  };
  await ensureDefaultTemplate(ns);
  // As cmd/api.ts: each sandbox's sandboxd looked up when it turns Running.
  const ahead = locateAhead(deps);
  const app = createApp(deps);
  const served: ServedApi[] = [];
  const made = {
    admin: (await keys.create({ user: 'root', admin: true })).key,
    alice: (await keys.create({ user: 'alice' })).key,
    bob: (await keys.create({ user: 'bob' })).key,
  };
  return {
    app,
    deps,
    keys: made,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.key !== undefined) headers['x-api-key'] = o.key;
      if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
      let body: string | undefined;
      if (o.body !== undefined) {
        body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
        headers['content-type'] ??= 'application/json';
      }
      const url = path.includes('namespace=')
        ? path
        : `${path}${path.includes('?') ? '&' : '?'}namespace=${ns.name}`;
      return app.request(`/api/v1${url}`, { method, headers, body });
    },
    async serve() {
      const s = await serveApi(app, deps, { host: '127.0.0.1', port: 0 });
      served.push(s);
      return s.url;
    },
    async close() {
      for (const s of served) await s.close();
      ahead();
      await cache.stop();
      await policies.stop();
    },
  };
}

/**
 * The API refuses a create naming a template that does not exist, so its tests get the
 * ClusterSandboxTemplate `default` that `make dev` installs. Only an image: no limits or
 * lifetimes that would meet a test's governance policy. Shared by every file; never deleted.
 */
async function ensureDefaultTemplate(ns: TestNamespace): Promise<void> {
  await ns.custom
    .createClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'clustersandboxtemplates',
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'ClusterSandboxTemplate',
        metadata: { name: 'default' },
        spec: { image: 'docker.io/library/debian:bookworm' },
      },
    })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
}
