// The operator and the API as `svc` processes signed in as their own ServiceAccounts, with
// exactly the RBAC the Helm chart renders (real TokenRequest tokens, the real apiserver's
// RBAC authorizer), and the webhook as its own too: the whole user journey works, nothing the components do is forbidden,
// and the API's account reads no Secret beyond its two and those of the sandbox namespace
// the chart lists in sandboxNamespaces (for credentials).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  NetworkingV1Api,
  KubernetesObjectApi,
  RbacAuthorizationV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { ApiKeyStore } from '../../api/index.ts';
import { SseParser } from '../../core/index.ts';
import { helmBinary, parseManifests, renderChart } from '../../hack/helm/kustomize.ts';
import { PATHS, webhookConfigurations } from '../../webhook/index.ts';
import {
  createCertificateAuthority,
  eventually,
  freePort,
  type Managed,
  startManaged,
  startSvc,
} from '../../stack/index.ts';
import {
  OidcIssuer,
  createSandboxAs,
  useClusterTemplate,
  useDevnode,
  useNamespace,
} from '../support/index.ts';

const root = resolve(import.meta.dirname, '../..');
/** Where the Sandboxes live. */
const ns = useNamespace('rbac');
/** The release's own namespace: ServiceAccounts, Roles, Lease, API keys, policy, sandboxd key. */
const system = useNamespace('rbac-sys');
/** A namespace the chart does not list in sandboxNamespaces: none of svc's business. */
const outside = useNamespace('rbac-out');
useDevnode(ns);
// A plain HTTP server in the workspace, for the preview proxy.
const template = useClusterTemplate('rbac', ns, {
  command: ['python3', '-m', 'http.server', '8080', '--bind', '127.0.0.1', '--directory', '/workspace'],
});
const release = `rbac-${Math.random().toString(16).slice(2, 8)}`;
const fullname = `${release}-svc`;
const processes: Managed[] = [];
const clusterScoped: KubernetesObject[] = [];
let dir = '';
let base = '';
let keys: { admin: string; alice: string; bob: string };
let apiKc: KubeConfig;
let operatorKc: KubeConfig;
let webhookKc: KubeConfig;
let egress: { path: string; kc: KubeConfig };
/** Admin endpoints need an admin group from OIDC (or devAuth, which the test must not use). */
const issuer = new OidcIssuer();
let adminBearer = '';

/** A kubeconfig file that signs in as `sa` with a token from the TokenRequest API. */
async function serviceAccountKubeconfig(sa: string): Promise<{ path: string; kc: KubeConfig }> {
  const issued = await system.core.createNamespacedServiceAccountToken({
    name: sa,
    namespace: system.name,
    body: { spec: { expirationSeconds: 3600, audiences: [] } },
  });
  const cluster = system.kc.getCurrentCluster()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'test', server: cluster.server, caData: cluster.caData, caFile: cluster.caFile }],
    users: [{ name: sa, token: issued.status!.token }],
    contexts: [{ name: sa, cluster: 'test', user: sa }],
    currentContext: sa,
  });
  const path = join(dir, `kubeconfig-${sa}`);
  await writeFile(path, kc.exportConfig(), { mode: 0o600 });
  return { path, kc };
}

function svc(name: string, args: string[]): Managed {
  const p = startManaged(
    name,
    join(root, 'node_modules/.bin/node'),
    [join(root, 'cmd/svc.ts'), ...args],
    join(dir, `${name}.log`),
  );
  processes.push(p);
  return p;
}

async function logs(): Promise<string> {
  const parts = await Promise.all(
    processes.map(async (p) => `--- ${p.name}\n${await readFile(p.logPath, 'utf8').catch(() => '')}`),
  );
  return parts.join('\n');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-test-rbac-'));
  // The chart's ServiceAccounts and RBAC, applied for real, in the release namespace.
  const rendered = parseManifests(
    renderChart(helmBinary(), { release, namespace: system.name, set: [`sandboxNamespaces={${ns.name}}`] }),
  );
  const rbac = rendered.filter((o) =>
    ['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'].includes(o.kind),
  ) as KubernetesObject[];
  expect(rbac.map((o) => o.kind).sort()).toEqual([
    ...Array<string>(7).fill('ClusterRole'),
    ...Array<string>(4).fill('ClusterRoleBinding'),
    ...Array<string>(3).fill('Role'),
    ...Array<string>(6).fill('RoleBinding'),
    ...Array<string>(4).fill('ServiceAccount'),
  ]);
  const objects = KubernetesObjectApi.makeApiClient(system.kc);
  for (const o of rbac) {
    await objects.create(o);
    if (o.kind!.startsWith('Cluster')) clusterScoped.push(o);
  }
  await writeFile(join(dir, 'rbac.yaml'), rbac.map((o) => stringify(o)).join('---\n'));

  const operator = await serviceAccountKubeconfig(`${fullname}-operator`);
  const api = await serviceAccountKubeconfig(`${fullname}-api`);
  const webhook = await serviceAccountKubeconfig(`${fullname}-webhook`);
  egress = await serviceAccountKubeconfig(`${fullname}-egress`);
  apiKc = api.kc;
  operatorKc = operator.kc;
  webhookKc = webhook.kc;

  // An installer's first step: API keys, kept hashed in the release namespace.
  const store = new ApiKeyStore({ kc: system.kc, namespace: system.name, cacheMs: 0 });
  keys = {
    admin: (await store.create({ user: 'root', admin: true })).key,
    alice: (await store.create({ user: 'alice' })).key,
    bob: (await store.create({ user: 'bob' })).key,
  };

  await issuer.start();
  adminBearer = `Bearer ${await issuer.token({ sub: 'root', groups: ['svc-admins'] })}`;
  svc('operator', [
    'operator',
    ...['--kubeconfig', operator.path, '--service-namespace', system.name, '--sandbox-namespaces', ns.name],
    ...['--identity', 'rbac-test', '--sandboxd-image', 'svc:test', '--lease-duration-seconds', '5'],
    ...['--log-level', 'debug', '--devnode', 'true'],
  ]);
  // The webhook, registered for the sandbox namespace only: every Sandbox write below, the
  // API's and a user's direct one, goes through it.
  const ca = await createCertificateAuthority(dir);
  const serving = await ca.issue('webhook', ['127.0.0.1']);
  const webhookPort = await freePort();
  svc('webhook', [
    'webhook',
    ...['--kubeconfig', webhook.path, '--service-namespace', system.name, '--log-level', 'debug'],
    ...[
      '--listen',
      `127.0.0.1:${webhookPort}`,
      '--tls-cert-file',
      serving.certPath,
      '--tls-key-file',
      serving.keyPath,
    ],
    ...['--api-service-account', `system:serviceaccount:${system.name}:${fullname}-api`],
  ]);
  await eventually(
    async () =>
      await fetch(`https://127.0.0.1:${webhookPort}${PATHS.validate}`).then(
        () => true,
        (err: unknown) => !/ECONNREFUSED/.test(String((err as { cause?: unknown }).cause)),
      ),
    { timeoutMs: 30_000, describe: () => 'svc webhook did not listen within 30 s' },
  );
  await system.core.patchNamespace(
    { name: ns.name, body: { metadata: { labels: { 'svc.io/rbac-test': ns.name } } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  const { mutating, validating } = webhookConfigurations({
    name: fullname,
    failurePolicy: 'Fail',
    caBundle: ca.pem,
    target: { url: `https://127.0.0.1:${webhookPort}` },
    namespaceSelector: { matchLabels: { 'svc.io/rbac-test': ns.name } },
    // As the chart: the operator's updates and the API's creates with createdBy left out.
    operatorUsername: `system:serviceaccount:${system.name}:${fullname}-operator`,
    apiUsername: `system:serviceaccount:${system.name}:${fullname}-api`,
  });
  const admission = system.kc.makeApiClient(AdmissionregistrationV1Api);
  await admission.createMutatingWebhookConfiguration({ body: mutating });
  await admission.createValidatingWebhookConfiguration({ body: validating });

  const apiProcess = await startSvc(
    [
      'api',
      ...['--kubeconfig', api.path, '--service-namespace', system.name, '--default-namespace', ns.name],
      ...['--listen', '127.0.0.1:0', '--log-level', 'debug', '--devnode', 'true'],
      ...[
        '--auth.oidc.issuer',
        issuer.url,
        '--auth.oidc.audience',
        'svc',
        '--auth.oidc.adminGroup',
        'svc-admins',
      ],
    ],
    { logPath: join(dir, 'api.log'), startTimeoutMs: 30_000 },
  );
  processes.push(apiProcess);
  base = apiProcess.url;
}, 180_000);

afterAll(async () => {
  const admission = system.kc.makeApiClient(AdmissionregistrationV1Api);
  await admission.deleteMutatingWebhookConfiguration({ name: fullname }).catch(() => undefined);
  await admission.deleteValidatingWebhookConfiguration({ name: fullname }).catch(() => undefined);
  for (const p of processes) await p.stop(5_000);
  await issuer.stop();
  const rbac = system.kc.makeApiClient(RbacAuthorizationV1Api);
  for (const o of clusterScoped) {
    const name = o.metadata!.name!;
    if (o.kind === 'ClusterRole') await rbac.deleteClusterRole({ name }).catch(() => undefined);
    else await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
  }
  if (dir) await rm(dir, { recursive: true, force: true });
}, 30_000);

/** 200 when the call succeeded, else the apiserver's status code. */
const status = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (err: unknown) => (err as { code?: number }).code,
  );

async function call(method: string, path: string, key: string, body?: unknown): Promise<Response> {
  const sep = path.includes('?') ? '&' : '?';
  return fetch(`${base}/api/v1${path}${sep}namespace=${ns.name}`, {
    method,
    headers: {
      ...(key.startsWith('Bearer ') ? { authorization: key } : { 'x-api-key': key }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A streaming call's events, in order. */
async function stream(
  path: string,
  key: string,
  body: string,
): Promise<{ event: string; data: Record<string, unknown> }[]> {
  const res = await call('POST', path, key, body);
  expect(
    res.status,
    await res
      .clone()
      .text()
      .catch(() => ''),
  ).toBe(200);
  const parser = new SseParser();
  const events: { event: string; data: Record<string, unknown> }[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    for (const m of parser.push(decoder.decode(chunk, { stream: true })))
      events.push({ event: m.event, data: JSON.parse(m.data) as Record<string, unknown> });
  }
  return events;
}

async function phase(name: string, want: string): Promise<void> {
  let last = '';
  let tail = '';
  await eventually(
    async () => {
      const res = await call('GET', `/sandboxes/${name}`, keys.alice);
      last = await res.text();
      tail = (await logs()).slice(-6_000);
      return res.ok && (JSON.parse(last) as { status?: { phase?: string } }).status?.phase === want;
    },
    { timeoutMs: 90_000, describe: () => `${name} never ${want}: ${last}\n${tail}` },
  );
}

describe('operator and API as their ServiceAccounts, with the chart’s RBAC', () => {
  test('create, configure, invoke, ports, preview, audit, governance, clone and delete all work', async () => {
    // alice's own Secret, made through the API, named in her sandbox's credentials.
    const secret = await call('POST', '/secrets', keys.alice, { name: 'alice-token', data: { token: 't' } });
    expect(secret.status, await secret.clone().text()).toBe(201);
    const listed = await call('GET', '/secrets', keys.alice);
    expect(await listed.json()).toMatchObject({ items: [{ name: 'alice-token', keys: ['token'] }] });
    const created = await call('POST', '/sandboxes', keys.alice, {
      name: 'agent',
      mode: 'agent',
      templateRef: { name: template },
      credentials: { env: [{ name: 'TOKEN', secretName: 'alice-token', key: 'token' }] },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    await phase('agent', 'Running');

    const configured = await stream(
      '/sandboxes/agent/configure',
      keys.alice,
      JSON.stringify({
        files: [{ path: '/workspace/agent.sh', content: 'read -r line; echo "got $line"' }],
        entrypoint: ['sh', '/workspace/agent.sh'],
        installCommand: ['sh', '-c', 'echo installed'],
      }),
    );
    expect(configured.at(-1)).toMatchObject({ event: 'result' });
    expect(configured.at(-1)!.data).toMatchObject({ installExitCode: 0, skipped: false });

    const invoked = await stream('/sandboxes/agent/invoke', keys.alice, 'hello\n');
    const stdout = invoked
      .filter((e) => e.event === 'log' && e.data.stream === 'stdout')
      .map((e) => e.data.data)
      .join('');
    expect(stdout).toBe('got hello\n');
    expect(invoked.at(-1)).toMatchObject({ event: 'exit', data: { exitCode: 0 } });

    const port = await call('POST', '/sandboxes/agent/ports', keys.alice, { port: 8080, protocol: 'http' });
    expect(port.status, await port.clone().text()).toBeLessThan(300);
    let page = '';
    await eventually(
      async () => {
        const res = await fetch(`${base}/api/v1/sandboxes/agent/preview/8080/?namespace=${ns.name}`, {
          headers: { 'x-api-key': keys.alice },
        });
        page = await res.text();
        return res.status === 200 && page.includes('agent.sh');
      },
      { timeoutMs: 30_000, describe: () => `preview never served the workspace listing: ${page}` },
    );

    const audit = await call('GET', `/audit/events?sandbox=agent&namespace=${ns.name}`, keys.alice);
    expect(audit.status).toBe(200);
    const reasons = ((await audit.json()) as { items: { reason: string }[] }).items.map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['AgentConfigured', 'AgentInvokeCompleted']));

    // A mistyped template lists the templates (list), a named snapshot class is looked up (get).
    const typo = await call('POST', '/sandboxes', keys.alice, {
      name: 'typo',
      templateRef: { name: 'defualt' },
    });
    expect(typo.status, await typo.clone().text()).toBe(400);
    expect(await typo.json()).toMatchObject({ error: 'template_not_found' });
    const clone = await call('POST', '/sandboxes/agent/clone', keys.alice, {
      name: 'copy',
      snapshotClass: 'svc-devnode',
    });
    expect(clone.status, await clone.clone().text()).toBe(202);
    await phase('copy', 'Running');

    // An admin from the OIDC group sets a policy of one sandbox per user.
    const policy = await call('PUT', `/governance/policies/${ns.name}`, adminBearer, {
      maxSandboxesPerUser: 1,
    });
    expect(policy.status, await policy.clone().text()).toBe(200);

    // A user's own `kubectl apply`: the webhook (as its ServiceAccount) sets createdBy to
    // the requester whatever the YAML says, and enforces the quota it just read.
    const rbac = system.kc.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: ns.name,
      body: {
        metadata: { name: 'writer' },
        rules: [{ apiGroups: ['svc.io'], resources: ['sandboxes'], verbs: ['create', 'get'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns.name,
      body: {
        metadata: { name: 'writer' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'writer' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'carol' }],
      },
    });
    const direct = (name: string) =>
      createSandboxAs(system.kc, 'carol', ns.name, name, {
        templateRef: { name: template },
        createdBy: 'alice',
        stopped: true,
      });
    const first = await direct('carols');
    expect(first.status, first.body).toBe(201);
    expect(first.json<{ spec: { createdBy: string } }>().spec.createdBy).toBe('carol');
    const second = await direct('carols-second');
    expect(second.status, second.body).toBe(403);
    expect(second.body).toContain('user_quota_exceeded');

    for (const [name, who] of [
      ['copy', keys.alice],
      ['agent', keys.alice],
      ['carols', adminBearer], // not alice's: only its owner or an admin may
    ] as const) {
      const deleted = await call('DELETE', `/sandboxes/${name}`, who);
      expect(deleted.status, await deleted.clone().text()).toBeLessThan(300);
    }
    await eventually(async () => (await call('GET', '/sandboxes/agent', keys.alice)).status === 404, {
      timeoutMs: 60_000,
      describe: () => 'sandbox agent was not deleted',
    });

    // Nothing either component tried was refused by RBAC, even where it carried on (events).
    const all = await logs();
    expect(all).not.toMatch(/forbidden/i);
  }, 300_000);

  test('a name taken by another object is found by the API as its ServiceAccount: 409 name_conflict', async () => {
    // Every kind the API reads for it (issue 32): a refusal by RBAC would let the create through.
    const namespace = ns.name;
    await ns.core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'taken-pod' },
        spec: { containers: [{ name: 'c', image: 'debian:bookworm' }] },
      },
    });
    await ns.core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: 'taken-pvc-workspace' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    await ns.core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'taken-secret-sandboxd' } },
    });
    await ns.kc.makeApiClient(NetworkingV1Api).createNamespacedNetworkPolicy({
      namespace,
      body: { metadata: { name: 'sandbox-taken-np' }, spec: { podSelector: {} } },
    });
    await ns.core.createNamespacedService({
      namespace,
      body: { metadata: { name: 'pf-taken-svc-8080' }, spec: { ports: [{ port: 8080 }] } },
    });
    for (const [name, kind, object, extra] of [
      ['taken-pod', 'Pod', 'taken-pod', {}],
      ['taken-pvc', 'PersistentVolumeClaim', 'taken-pvc-workspace', {}],
      ['taken-secret', 'Secret', 'taken-secret-sandboxd', {}],
      ['taken-np', 'NetworkPolicy', 'sandbox-taken-np', {}],
      ['taken-svc', 'Service', 'pf-taken-svc-8080', { ports: [{ port: 8080 }] }],
    ] as const) {
      const res = await call('POST', '/sandboxes', keys.alice, {
        name,
        templateRef: { name: template },
        ...extra,
      });
      expect(res.status, name).toBe(409);
      expect(await res.json()).toMatchObject({ error: 'name_conflict', conflicts: [{ kind, name: object }] });
    }
  }, 60_000);

  test('the API’s ServiceAccount reads no Secret beyond its two and the sandbox namespace’s', async () => {
    const core = apiKc.makeApiClient(CoreV1Api);
    await system.core.createNamespacedSecret({
      namespace: system.name,
      body: { metadata: { name: 'unrelated' }, stringData: { password: 'x' } },
    });
    await ns.core.createNamespacedSecret({
      namespace: ns.name,
      body: { metadata: { name: 'user-credentials' }, stringData: { token: 'x' } },
    });
    // What it needs.
    expect(await status(core.readNamespacedSecret({ name: 'svc-api-keys', namespace: system.name }))).toBe(
      200,
    );
    expect(
      await status(core.readNamespacedSecret({ name: 'svc-sandboxd-key', namespace: system.name })),
    ).toBe(200);
    // Credentials: users' Secrets in the sandbox namespace the chart enabled (RoleBinding
    // to <release>-api-credentials). Tokens there are refused by the API's code, not RBAC.
    expect(await status(core.readNamespacedSecret({ name: 'user-credentials', namespace: ns.name }))).toBe(
      200,
    );
    expect(await status(core.listNamespacedSecret({ namespace: ns.name }))).toBe(200);
    // Nothing else: not other Secrets of its namespace, not kube-system's, no listing
    // anywhere else.
    expect(await status(core.readNamespacedSecret({ name: 'unrelated', namespace: system.name }))).toBe(403);
    expect(await status(core.listNamespacedSecret({ namespace: system.name }))).toBe(403);
    expect(await status(core.readNamespacedSecret({ name: 'anything', namespace: 'kube-system' }))).toBe(403);
    expect(await status(core.listNamespacedSecret({ namespace: 'kube-system' }))).toBe(403);
    expect(await status(core.listSecretForAllNamespaces())).toBe(403);
    expect(
      await status(
        core.patchNamespacedSecret({ name: 'unrelated', namespace: system.name, body: { data: {} } }),
      ),
    ).toBe(403);
    // The sandboxd key is the operator's to write; the API only reads it.
    const key = await core.readNamespacedSecret({ name: 'svc-sandboxd-key', namespace: system.name });
    expect(
      await status(
        core.replaceNamespacedSecret({ name: 'svc-sandboxd-key', namespace: system.name, body: key }),
      ),
    ).toBe(403);
  });

  test('the operator’s ServiceAccount touches Secrets, Pods and claims only in the sandbox namespaces', async () => {
    const core = operatorKc.makeApiClient(CoreV1Api);
    await outside.core.createNamespacedSecret({
      namespace: outside.name,
      body: {
        metadata: { name: 'theirs', labels: { 'svc.io/sandbox': 'x' } },
        stringData: { password: 'x' },
      },
    });
    await ns.core.createNamespacedSecret({
      namespace: ns.name,
      body: { metadata: { name: 'ours', labels: { 'svc.io/sandbox': 'x' } }, stringData: { token: 'x' } },
    });
    // Inside the namespace the chart lists: what a sandbox needs.
    expect(await status(core.readNamespacedSecret({ name: 'ours', namespace: ns.name }))).toBe(200);
    expect(await status(core.listNamespacedSecret({ namespace: ns.name }))).toBe(200);
    expect(await status(core.listNamespacedPod({ namespace: ns.name }))).toBe(200);
    expect(await status(core.listNamespacedPersistentVolumeClaim({ namespace: ns.name }))).toBe(200);
    // Outside it, nothing: not by name, not by list, not by label, not cluster-wide.
    expect(await status(core.readNamespacedSecret({ name: 'theirs', namespace: outside.name }))).toBe(403);
    expect(await status(core.listNamespacedSecret({ namespace: outside.name }))).toBe(403);
    expect(await status(core.listNamespacedSecret({ namespace: 'kube-system' }))).toBe(403);
    expect(await status(core.listSecretForAllNamespaces({ labelSelector: 'svc.io/sandbox' }))).toBe(403);
    expect(await status(core.listSecretForAllNamespaces())).toBe(403);
    expect(await status(core.deleteNamespacedSecret({ name: 'theirs', namespace: outside.name }))).toBe(403);
    expect(await status(core.listNamespacedPod({ namespace: outside.name }))).toBe(403);
    expect(await status(core.readNamespacedPod({ name: 'any', namespace: outside.name }))).toBe(403);
    expect(await status(core.listPodForAllNamespaces({ labelSelector: 'svc.io/sandbox' }))).toBe(403);
    expect(
      await status(
        core.createNamespacedPod({
          namespace: outside.name,
          body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } },
        }),
      ),
    ).toBe(403);
    expect(await status(core.listNamespacedPersistentVolumeClaim({ namespace: outside.name }))).toBe(403);
    expect(await status(core.listPersistentVolumeClaimForAllNamespaces())).toBe(403);
    // In its own namespace only the sandboxd key.
    expect(
      await status(core.readNamespacedSecret({ name: 'svc-sandboxd-key', namespace: system.name })),
    ).toBe(200);
    expect(await status(core.listNamespacedSecret({ namespace: system.name }))).toBe(403);
  });

  test('the egress gateway runs as its ServiceAccount: it watches the sandbox namespace, writes Events there only, and reads no Secret', async () => {
    const gateway = await startSvc(
      [
        'egress',
        ...['--kubeconfig', egress.path, '--sandbox-namespaces', ns.name],
        ...['--listen', '127.0.0.1:0', '--log-level', 'debug'],
      ],
      { logPath: join(dir, 'egress.log') },
    );
    processes.push(gateway);
    // Listening means every informer listed (and watches): what it reads, it may read.
    const { port } = gateway;
    // No sandbox Pod has 127.0.0.1: refused, as any source that is no sandbox.
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: 'http://api.example.com/' }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(refused).toEqual({
      status: 403,
      body: 'svc egress: api.example.com is not allowed for 127.0.0.1: no sandbox has that address\n',
    });
    const core = egress.kc.makeApiClient(CoreV1Api);
    const custom = egress.kc.makeApiClient(CustomObjectsApi);
    const event = (namespace: string) =>
      core.createNamespacedEvent({
        namespace,
        body: {
          metadata: { generateName: 'egress-rbac.', namespace },
          involvedObject: { kind: 'Sandbox', name: 'x', namespace },
          reason: 'EgressDenied',
          message: 'rbac test',
        },
      });
    const sandboxes = (namespace: string) =>
      custom.listNamespacedCustomObject({
        group: 'svc.io',
        version: 'v1alpha1',
        namespace,
        plural: 'sandboxes',
      });
    // In the sandbox namespace: what identifies a sandbox, and the audit Event.
    expect(
      await status(core.listNamespacedPod({ namespace: ns.name, labelSelector: 'svc.io/sandbox' })),
    ).toBe(200);
    expect(await status(sandboxes(ns.name))).toBe(200);
    expect(await status(event(ns.name))).toBe(200);
    expect(
      await status(
        custom.listClusterCustomObject({
          group: 'svc.io',
          version: 'v1alpha1',
          plural: 'clustersandboxtemplates',
        }),
      ),
    ).toBe(200);
    // Nothing else: no Pod or Sandbox elsewhere, no write but Events, no Secret anywhere.
    expect(await status(core.listNamespacedPod({ namespace: outside.name }))).toBe(403);
    expect(await status(core.listPodForAllNamespaces({ labelSelector: 'svc.io/sandbox' }))).toBe(403);
    expect(await status(core.readNamespacedPod({ name: 'any', namespace: ns.name }))).toBe(403);
    expect(await status(sandboxes(outside.name))).toBe(403);
    expect(await status(event(outside.name))).toBe(403);
    expect(await status(event(system.name))).toBe(403);
    expect(await status(core.listNamespacedSecret({ namespace: ns.name }))).toBe(403);
    expect(
      await status(core.readNamespacedSecret({ name: 'svc-sandboxd-key', namespace: system.name })),
    ).toBe(403);
    expect(
      await status(
        custom.createNamespacedCustomObject({
          group: 'svc.io',
          version: 'v1alpha1',
          namespace: ns.name,
          plural: 'sandboxes',
          body: { apiVersion: 'svc.io/v1alpha1', kind: 'Sandbox', metadata: { name: 'from-egress' } },
        }),
      ),
    ).toBe(403);
  });

  test('the API and the webhook write ConfigMaps only in the service namespace', async () => {
    const map = (name: string) => ({ metadata: { name }, data: { a: 'b' } });
    for (const [who, kc] of [
      ['api', apiKc],
      ['webhook', webhookKc],
    ] as const) {
      const core = kc.makeApiClient(CoreV1Api);
      expect(
        await status(core.createNamespacedConfigMap({ namespace: outside.name, body: map(`from-${who}`) })),
        who,
      ).toBe(403);
      expect(
        await status(core.createNamespacedConfigMap({ namespace: ns.name, body: map(`from-${who}`) })),
        who,
      ).toBe(403);
      expect(
        await status(core.createNamespacedConfigMap({ namespace: 'kube-system', body: map(`from-${who}`) })),
        who,
      ).toBe(403);
      // The quota ledgers live there, one per sandbox namespace.
      expect(
        await status(
          core.createNamespacedConfigMap({ namespace: system.name, body: map(`probe-from-${who}`) }),
        ),
        who,
      ).toBe(200);
    }
  });
});
