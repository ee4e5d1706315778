// `make dev`: the whole service on this machine. A real control plane (state kept in
// .dev/, so a second run finds the first run's sandboxes), svc's CRDs and the snapshot
// CRDs, the default templates of config/samples, the Helm chart's ServiceAccounts and RBAC,
// then the admission webhook (registered with the harness's CA), devnode, the operator and
// the API as processes of their own, each but devnode signed in as its ServiceAccount, as in
// a cluster. Prints the API URL, the keys and a KUBECONFIG line, and writes them to
// .dev/env. Ctrl-C stops everything it started.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import { ApiKeyStore } from '../api/index.ts';
import { ignoring } from '../kube/index.ts';
import { helmBinary, parseManifests, renderChart } from './helm/kustomize.ts';
import { webhookConfigurations } from '../webhook/index.ts';
import {
  freePort,
  installCrds,
  kubeAssets,
  readCrds,
  snapshotCrdDir,
  startControlPlane,
  waitFor,
} from '../test/controlplane/index.ts';
import { startManaged } from '../test/controlplane/processes.ts';

const root = resolve(import.meta.dirname, '..');
const SERVICE_NAMESPACE = 'svc-system';
/** The API's identity: the webhook trusts its `createdBy` (set from the API's caller) and no one else's. */
const API_USER = `system:serviceaccount:${SERVICE_NAMESPACE}:svc-api`;
const NAMESPACE = 'default';
/** The templates a cluster install gets (the chart copies them from here). */
const TEMPLATES = ['clustersandboxtemplate-default.yaml', 'clustersandboxtemplate-minimal.yaml'];
const RBAC_KINDS = new Set(['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { dir: { type: 'string', default: '.dev' }, port: { type: 'string', default: '8080' } },
  });
  const dir = resolve(values.dir);
  const port = Number(values.port);
  await mkdir(join(dir, 'logs'), { recursive: true });
  const say = (line: string) => process.stdout.write(`${line}\n`);

  say('starting the control plane (etcd + kube-apiserver)…');
  const cp = await startControlPlane({ assetsDir: await kubeAssets(), dataDir: join(dir, 'cluster') });
  const children: { stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    for (const c of children.reverse()) await c.stop();
    await cp.stop();
  };
  try {
    await installCrds(
      cp.kubeConfig,
      await readCrds([join(root, 'config/crd/bases'), await snapshotCrdDir()]),
    );
    const kc = cp.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const objects = KubernetesObjectApi.makeApiClient(kc);
    await ignoring([409], () => core.createNamespace({ body: { metadata: { name: SERVICE_NAMESPACE } } }));
    const apply = (o: KubernetesObject) =>
      objects.patch(o, undefined, undefined, 'svc-dev', true, PatchStrategy.ServerSideApply);
    for (const file of TEMPLATES) {
      await apply(parse(await readFile(join(root, 'config/samples', file), 'utf8')) as KubernetesObject);
    }
    // The chart's ServiceAccounts and least-privilege RBAC, as `helm install` makes them.
    for (const o of parseManifests(renderChart(helmBinary(), { namespace: SERVICE_NAMESPACE }))) {
      if (RBAC_KINDS.has(o.kind)) await apply(o);
    }
    const signIn = (component: string) =>
      serviceAccountKubeconfig(cp, component, join(dir, `kubeconfig-${component}`));
    const keys = await apiKeys(new ApiKeyStore({ kc, namespace: SERVICE_NAMESPACE }), join(dir, 'env'));

    const node = join(root, 'node_modules/.bin/node');
    const svc = join(root, 'cmd/svc.ts');
    const start = async (
      name: string,
      args: string[],
      kubeconfig: Promise<string> | string = cp.kubeconfigPath,
    ) => {
      const m = startManaged(
        name,
        node,
        [svc, name, '--kubeconfig', await kubeconfig, ...args],
        join(dir, 'logs', `${name}.log`),
      );
      children.push(m);
      m.child.once('exit', (code) => {
        if (!stopping) say(`${name} exited (${code}); see ${m.logPath}`);
      });
    };
    let stopping = false;
    await startWebhook(cp, dir, (args) => start('webhook', args, signIn('webhook')));
    // devnode plays kubelet, provisioner and snapshotter: the cluster's own, not svc's.
    await start('devnode', ['--data-dir', join(dir, 'devnode')]);
    await start(
      'operator',
      ['--service-namespace', SERVICE_NAMESPACE, '--sandboxd-image', 'svc:dev'],
      signIn('operator'),
    );
    await start(
      'api',
      [
        '--listen',
        `127.0.0.1:${port}`,
        '--service-namespace',
        SERVICE_NAMESPACE,
        '--default-namespace',
        NAMESPACE,
        '--auth.devAuth',
        'true',
      ],
      signIn('api'),
    );
    const url = `http://127.0.0.1:${port}`;
    await waitFor(() => fetch(`${url}/healthz`).then((r) => r.ok), {
      timeoutMs: 60_000,
      describe: () => `the API at ${url}/healthz (see ${join(dir, 'logs', 'api.log')})`,
    });

    const env = {
      SVC_BASE_URL: url,
      SVC_ADMIN_KEY: keys.admin,
      SVC_ALICE_KEY: keys.alice,
      SVC_BOB_KEY: keys.bob,
      SVC_NAMESPACE: NAMESPACE,
      KUBECONFIG: cp.kubeconfigPath,
    };
    await writeFile(
      join(dir, 'env'),
      Object.entries(env)
        .map(([k, v]) => `export ${k}=${v}`)
        .join('\n') + '\n',
      { mode: 0o600 },
    );
    say(`\nsvc is running: ${url}/api/v1  (kube-apiserver ${cp.version})`);
    say(`  admin key: ${keys.admin}`);
    say(`  alice key: ${keys.alice}`);
    say(`  bob key:   ${keys.bob}`);
    say(`  export KUBECONFIG=${cp.kubeconfigPath}   # then: kubectl get sandboxes`);
    say(`  source ${join(dir, 'env')}                 # all of the above as shell variables`);
    say(`  logs: ${join(dir, 'logs')}/   — Ctrl-C stops everything`);

    await new Promise<void>((done) => {
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    });
    stopping = true;
    say('stopping…');
  } finally {
    await stopAll();
  }
  return 0;
}

/**
 * The admission webhook on 127.0.0.1 with a serving certificate from the harness's CA,
 * registered (again on every run: the port and CA are new) with failurePolicy Fail, as a
 * cluster would run it, so `kubectl apply` in dev meets governance and gets its createdBy.
 */
async function startWebhook(
  cp: Awaited<ReturnType<typeof startControlPlane>>,
  dir: string,
  start: (args: string[]) => Promise<void>,
): Promise<void> {
  const port = await freePort();
  const cert = await cp.ca.issue('svc-webhook', ['127.0.0.1']);
  const tls = join(dir, 'webhook');
  await mkdir(tls, { recursive: true });
  await writeFile(join(tls, 'tls.crt'), cert.certPem);
  await writeFile(join(tls, 'tls.key'), cert.keyPem, { mode: 0o600 });
  await start([
    ...['--listen', `127.0.0.1:${port}`, '--service-namespace', SERVICE_NAMESPACE],
    ...['--tls-cert-file', join(tls, 'tls.crt'), '--tls-key-file', join(tls, 'tls.key')],
    ...['--api-service-account', API_USER],
  ]);
  await waitFor(() => reachable(port), {
    timeoutMs: 60_000,
    describe: () => `the webhook on 127.0.0.1:${port} (see ${join(dir, 'logs', 'webhook.log')})`,
  });
  const admission = cp.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const { mutating, validating } = webhookConfigurations({
    failurePolicy: 'Fail',
    caBundle: cp.ca.pem,
    target: { url: `https://127.0.0.1:${port}` },
  });
  const name = mutating.metadata.name;
  await ignoring([404], () => admission.deleteMutatingWebhookConfiguration({ name }));
  await ignoring([404], () => admission.deleteValidatingWebhookConfiguration({ name }));
  await admission.createMutatingWebhookConfiguration({ body: mutating });
  await admission.createValidatingWebhookConfiguration({ body: validating });
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/**
 * A kubeconfig that signs in as the chart's ServiceAccount `svc-<component>`, with a token
 * from the TokenRequest API (the kubelet's way of giving a Pod its token). Made anew on every
 * run, valid for a week.
 */
async function serviceAccountKubeconfig(
  cp: Awaited<ReturnType<typeof startControlPlane>>,
  component: string,
  path: string,
): Promise<string> {
  const issued = await cp.kubeConfig.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    name: `svc-${component}`,
    namespace: SERVICE_NAMESPACE,
    body: { spec: { expirationSeconds: 7 * 24 * 3600, audiences: [] } },
  });
  const cluster = cp.kubeConfig.getCurrentCluster()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'svc-dev', server: cluster.server, caData: cluster.caData, caFile: cluster.caFile }],
    users: [{ name: `svc-${component}`, token: issued.status!.token }],
    contexts: [{ name: 'svc-dev', cluster: 'svc-dev', user: `svc-${component}` }],
    currentContext: 'svc-dev',
  });
  await writeFile(path, kc.exportConfig(), { mode: 0o600 });
  return path;
}

/** The dev keys: those of the previous run when they still work, else new ones. */
async function apiKeys(
  store: ApiKeyStore,
  envPath: string,
): Promise<{ admin: string; alice: string; bob: string }> {
  if (existsSync(envPath)) {
    const text = await readFile(envPath, 'utf8');
    const read = (k: string) => new RegExp(`^export ${k}=(.+)$`, 'm').exec(text)?.[1];
    const previous = { admin: read('SVC_ADMIN_KEY'), alice: read('SVC_ALICE_KEY'), bob: read('SVC_BOB_KEY') };
    const valid = await Promise.all(
      Object.values(previous).map(async (k) => k !== undefined && (await store.lookup(k)) !== undefined),
    );
    if (valid.every(Boolean)) return previous as { admin: string; alice: string; bob: string };
  }
  return {
    admin: (await store.create({ user: 'admin', admin: true })).key,
    alice: (await store.create({ user: 'alice' })).key,
    bob: (await store.create({ user: 'bob' })).key,
  };
}

process.exitCode = await main();
