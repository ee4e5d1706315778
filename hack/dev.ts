// `make dev`: the whole service on this machine. A real control plane (state kept in
// .dev/, so a second run finds the first run's sandboxes), svc's CRDs and the snapshot
// CRDs, default templates, then devnode, the operator and the API as processes of their
// own. Prints the API URL, the keys and a KUBECONFIG line, and writes them to .dev/env.
// Ctrl-C stops everything it started.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { ApiKeyStore } from '../api/index.ts';
import { GROUP, VERSION } from '../core/index.ts';
import { ignoring } from '../kube/index.ts';
import {
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
  const cp = await startControlPlane({ assetsDir: await kubeAssets(), dataDir: join(dir, 'cluster') });
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
    const kubeconfig = ['--kubeconfig', cp.kubeconfigPath];
    const start = (name: string, args: string[]) => {
      const m = startManaged(
        name,
        node,
        [svc, name, ...kubeconfig, ...args],
        join(dir, 'logs', `${name}.log`),
      );
      children.push(m);
      m.child.once('exit', (code) => {
        if (!stopping) say(`${name} exited (${code}); see ${m.logPath}`);
      });
    };
    let stopping = false;
    start('devnode', ['--data-dir', join(dir, 'devnode')]);
    start('operator', ['--service-namespace', SERVICE_NAMESPACE, '--sandboxd-image', 'svc:dev']);
    start('api', [
      '--listen',
      `127.0.0.1:${port}`,
      '--service-namespace',
      SERVICE_NAMESPACE,
      '--default-namespace',
      NAMESPACE,
      '--auth.devAuth',
      'true',
    ]);
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
