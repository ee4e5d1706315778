// `make dev`: the whole service on this machine. A real control plane (state kept in
// .dev/, so a second run finds the first run's sandboxes), svc's CRDs and the snapshot
// CRDs, default templates, then the admission webhook (registered with the harness's CA),
// devnode, the operator and the API as processes of their own. Prints the API URL, the keys and a KUBECONFIG line, and writes them to .dev/env.
// Ctrl-C stops everything it started.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AdmissionregistrationV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { ApiKeyStore } from '../api/index.ts';
import { GROUP, VERSION } from '../core/index.ts';
import { ignoring } from '../kube/index.ts';
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

const TEMPLATES = {
  default: { image: 'debian:bookworm', storage: { size: '5Gi' }, network: { egress: 'internet' } },
  minimal: { image: 'debian:bookworm-slim', storage: { size: '1Gi' }, network: { egress: 'none' } },
};

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { dir: { type: 'string', default: '.dev' }, port: { type: 'string', default: '8080' } },
  });
  const dir = resolve(values.dir);
  const port = Number(values.port);
  await mkdir(join(dir, 'logs'), { recursive: true });
  const say = (line: string) => process.stdout.write(`${line}\n`);

  say('starting the control plane (etcd + kube-apiserver)…');
  const cp = await startControlPlane({
    assetsDir: await kubeAssets(),
    dataDir: join(dir, 'cluster'),
    users: [{ name: API_USER, groups: ['system:masters'] }],
  });
  const children: { stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    for (const c of children.reverse()) await c.stop();
    await cp.stop();
  };
  try {
    await installCrds(cp.kubeConfig, await readCrds([join(root, 'crds'), await snapshotCrdDir()]));
    const kc = cp.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const custom = kc.makeApiClient(CustomObjectsApi);
    await ignoring([409], () => core.createNamespace({ body: { metadata: { name: SERVICE_NAMESPACE } } }));
    for (const [name, spec] of Object.entries(TEMPLATES)) {
      await ignoring([409], () =>
        custom.createClusterCustomObject({
          group: GROUP,
          version: VERSION,
          plural: 'clustersandboxtemplates',
          body: {
            apiVersion: `${GROUP}/${VERSION}`,
            kind: 'ClusterSandboxTemplate',
            metadata: { name },
            spec,
          },
        }),
      );
    }
    const keys = await apiKeys(new ApiKeyStore({ kc, namespace: SERVICE_NAMESPACE }), join(dir, 'env'));

    const node = join(root, 'node_modules/.bin/node');
    const svc = join(root, 'cmd/svc.ts');
    const start = (name: string, args: string[], kubeconfig = cp.kubeconfigPath) => {
      const m = startManaged(
        name,
        node,
        [svc, name, '--kubeconfig', kubeconfig, ...args],
        join(dir, 'logs', `${name}.log`),
      );
      children.push(m);
      m.child.once('exit', (code) => {
        if (!stopping) say(`${name} exited (${code}); see ${m.logPath}`);
      });
    };
    let stopping = false;
    await startWebhook(cp, dir, (args) => start('webhook', args));
    start('devnode', ['--data-dir', join(dir, 'devnode')]);
    start('operator', ['--service-namespace', SERVICE_NAMESPACE, '--sandboxd-image', 'svc:dev']);
    start(
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
      cp.kubeconfigs[API_USER],
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
  start: (args: string[]) => void,
): Promise<void> {
  const port = await freePort();
  const cert = await cp.ca.issue('svc-webhook', ['127.0.0.1']);
  const tls = join(dir, 'webhook');
  await mkdir(tls, { recursive: true });
  await writeFile(join(tls, 'tls.crt'), cert.certPem);
  await writeFile(join(tls, 'tls.key'), cert.keyPem, { mode: 0o600 });
  start([
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
