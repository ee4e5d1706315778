// `make dev`: the whole service on this machine. A real control plane (state kept in
// .dev/, so a second run finds the first run's sandboxes), svc's CRDs and the snapshot
// CRDs, the default templates of config/samples, the Helm chart's ServiceAccounts and RBAC,
// then the admission webhook (registered with the harness's CA), devnode, the operator and
// the API as processes of their own, each but devnode signed in as its ServiceAccount, as in
// a cluster, and each restarted when it dies, as a kubelet would. Prints the API URL, the
// keys and a KUBECONFIG line, and writes them to .dev/env. Ctrl-C stops everything it
// started; a run that was killed outright is cleaned up by the next one (its mounts).
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
import { nodeOptionsOf } from '../cmd/node-options.ts';
import { unmountUnder } from '../devnode/index.ts';
import { ignoring } from '../kube/index.ts';
import { helmBinary, parseManifests, renderChart } from './helm/kustomize.ts';
import { apiKeys } from './dev/keys.ts';
import { lockStateDir } from './dev/lock.ts';
import { listensOn, parsePort, portProblem } from './dev/port.ts';
import { supervise, type Supervised } from './dev/supervisor.ts';
import { webhookConfigurations } from '../webhook/index.ts';
import {
  eventually,
  freePort,
  installCrds,
  kubeAssets,
  readCrds,
  snapshotCrdDir,
  startControlPlane,
} from '../stack/index.ts';

const root = resolve(import.meta.dirname, '..');
const SERVICE_NAMESPACE = 'svc-system';
/** The API's identity: the webhook trusts its `createdBy` (set from the API's caller) and no one else's. */
const API_USER = `system:serviceaccount:${SERVICE_NAMESPACE}:svc-api`;
const NAMESPACE = 'default';
/** The templates a cluster install gets (the chart copies them from here). */
const TEMPLATES = ['clustersandboxtemplate-default.yaml', 'clustersandboxtemplate-minimal.yaml'];
const RBAC_KINDS = new Set(['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']);
/** How long the API may take to answer after it was started. */
const API_START_TIMEOUT_MS = 90_000;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { dir: { type: 'string', default: '.dev' }, port: { type: 'string', default: '8080' } },
  });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const fail = (line: string) => {
    process.stderr.write(`make dev: ${line}\n`);
    return 1;
  };
  const port = parsePort(values.port);
  if (port === undefined) return fail(`PORT must be a TCP port number (1-65535), not "${values.port}"`);
  const dir = resolve(values.dir);
  await mkdir(join(dir, 'logs'), { recursive: true });

  // Checked before anything starts, so a mistake costs no time and kills nothing.
  const lock = await lockStateDir(join(dir, 'dev.lock'));
  if (!('release' in lock)) {
    const url = (await readFile(join(dir, 'env'), 'utf8').catch(() => '')).match(/SVC_BASE_URL=(\S+)/)?.[1];
    return fail(
      `one is already running on ${dir} (pid ${lock.pid}${url ? `, ${url}` : ''}). ` +
        `Use it (source ${join(dir, 'env')}), stop it (Ctrl-C in its terminal, or kill ${lock.pid}), ` +
        `or give this one its own state folder.`,
    );
  }
  // Ctrl-C (or SIGTERM, SIGHUP) at any time stops what has started, so even a start cut
  // short leaves no mount; it takes effect at the next step. A second Ctrl-C kills at once.
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => stop.abort());
  const stopped = new Promise<void>((done) => stop.signal.addEventListener('abort', () => done()));
  const started = performance.now();
  const note = (line: string) =>
    say(`[${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}`);
  /** A step of the start: after Ctrl-C it throws instead, so the start goes no further. */
  const step = (line: string) => {
    stop.signal.throwIfAborted();
    note(line);
  };
  const children: Supervised[] = [];
  let cp: Awaited<ReturnType<typeof startControlPlane>> | undefined;
  try {
    const problem = await portProblem(port);
    if (problem) return fail(`${problem}. Stop it, or choose another port: make dev PORT=${port + 1}`);
    // A run that was killed outright could not unmount its Pods' roots and clones.
    const stale = await unmountUnder(dir);
    if (stale.length > 0) step(`unmounted ${stale.length} mount(s) a killed run left under ${dir}`);

    step('starting the control plane (etcd + kube-apiserver)…');
    const assets = await kubeAssets();
    cp = await startControlPlane({ assetsDir: assets, dataDir: join(dir, 'cluster') });
    const kc = cp.kubeConfig;
    step(`installing the CRDs, templates and RBAC (kube-apiserver ${cp.version})…`);
    await installCrds(kc, await readCrds([join(root, 'crds'), await snapshotCrdDir()]));
    const core = kc.makeApiClient(CoreV1Api);
    const objects = KubernetesObjectApi.makeApiClient(kc);
    await ignoring([409], () => core.createNamespace({ body: { metadata: { name: SERVICE_NAMESPACE } } }));
    const apply = (o: KubernetesObject) =>
      objects.patch(o, undefined, undefined, 'svc-dev', true, PatchStrategy.ServerSideApply);
    // The sandbox namespace opts in to sandboxes, as docs/install.md says an installer does.
    await apply({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: NAMESPACE, labels: { 'svc.io/sandboxes': 'enabled' } },
    });
    for (const file of TEMPLATES) {
      await apply(parse(await readFile(join(root, 'config/samples', file), 'utf8')) as KubernetesObject);
    }
    // The chart's ServiceAccounts and least-privilege RBAC, as `helm install` makes them.
    for (const o of parseManifests(
      renderChart(helmBinary(), { namespace: SERVICE_NAMESPACE, set: [`sandboxNamespaces={${NAMESPACE}}`] }),
    )) {
      if (RBAC_KINDS.has(o.kind)) await apply(o);
    }
    const controlPlane = cp;
    const signIn = (component: string) =>
      serviceAccountKubeconfig(controlPlane, component, join(dir, `kubeconfig-${component}`));
    const keys = await apiKeys(new ApiKeyStore({ kc, namespace: SERVICE_NAMESPACE }), join(dir, 'env'));

    const node = join(root, 'node_modules/.bin/node');
    const svc = join(root, 'cmd/svc.ts');
    const start = async (
      name: string,
      args: string[],
      kubeconfig: Promise<string> | string = controlPlane.kubeconfigPath,
    ): Promise<Supervised> => {
      const s = supervise({
        name,
        binary: node,
        args: [...nodeOptionsOf(name), svc, name, '--kubeconfig', await kubeconfig, ...args],
        logPath: join(dir, 'logs', `${name}.log`),
        // Never `step`: this is called from the supervisor's event handlers, where a throw
        // would be uncaught and end make dev before it unmounted anything.
        say: note,
        // A terminal's Ctrl-C reaches the components too: one that exits on it has stopped.
        shutdown: stop.signal,
      });
      children.push(s);
      return s;
    };
    step('starting the admission webhook…');
    await startWebhook(controlPlane, dir, (args) => start('webhook', args, signIn('webhook')));
    // devnode plays kubelet, provisioner and snapshotter: the cluster's own, not svc's.
    step('starting devnode, the operator and the API…');
    await start('devnode', ['--data-dir', join(dir, 'devnode')]);
    const metricsPort = await freePort();
    await start(
      'operator',
      [
        ...['--service-namespace', SERVICE_NAMESPACE, '--sandboxd-image', 'svc:dev'],
        // The namespace the chart's RBAC was rendered for: the operator may touch Pods,
        // claims and Secrets there only, so it watches just that one.
        ...['--sandbox-namespaces', NAMESPACE],
        // The dashboard's operator panels read these (reconciles, queue, leader).
        ...['--metrics-listen', `127.0.0.1:${metricsPort}`],
        // devnode's address annotations are where sandboxd listens: a dev stack's alone.
        ...['--devnode', 'true'],
      ],
      signIn('operator'),
    );
    const api = await start(
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
        // devnode's address annotations are where previews and sandboxd are reached.
        ...['--devnode', 'true'],
        // The browser console, when `make console` has built it (make dev does).
        ...(existsSync(join(root, 'dist/console/index.html'))
          ? ['--console.dir', join(root, 'dist/console')]
          : []),
      ],
      signIn('api'),
    );
    const url = `http://127.0.0.1:${port}`;
    step(`waiting for the API on ${url}…`);
    await waitForOurApi(port, keys.admin, api, stop.signal);

    const env = {
      SVC_BASE_URL: url,
      SVC_ADMIN_KEY: keys.admin,
      SVC_ALICE_KEY: keys.alice,
      SVC_BOB_KEY: keys.bob,
      SVC_NAMESPACE: NAMESPACE,
      SVC_OPERATOR_METRICS_URL: `http://127.0.0.1:${metricsPort}/metrics`,
      KUBECONFIG: controlPlane.kubeconfigPath,
    };
    await writeFile(
      join(dir, 'env'),
      Object.entries(env)
        .map(([k, v]) => `export ${k}=${v}`)
        .join('\n') +
        // kubectl is not installed system-wide: it is the one hack/kube built.
        `\nexport PATH="${assets}:$PATH"\n`,
      { mode: 0o600 },
    );
    say(`\nsvc is running: ${url}/api/v1  (kube-apiserver ${controlPlane.version})`);
    if (existsSync(join(root, 'dist/console/index.html')))
      say(`  console:   ${url}/  (sign in with a key below)`);
    say(`  admin key: ${keys.admin}`);
    say(`  alice key: ${keys.alice}`);
    say(`  bob key:   ${keys.bob}`);
    say(`  operator metrics: ${env.SVC_OPERATOR_METRICS_URL}`);
    say(`  kubectl:   ${join(assets, 'kubectl')}`);
    // The line that points sbx (the CLI, `make cli-binary`) at this run, signed in as alice.
    say(`  sbx:       dist/sbx login ${url} --api-key ${keys.alice} --name dev   # after make cli-binary`);
    say(`  source ${join(dir, 'env')}   # the above as shell variables, KUBECONFIG, kubectl on PATH`);
    say(`  logs: ${join(dir, 'logs')}/   — Ctrl-C stops everything`);

    await stopped;
    say('stopping…');
    return 0;
  } catch (err) {
    if (!stop.signal.aborted) return fail((err as Error).message);
    say('stopping before it was ready…');
    return 0;
  } finally {
    for (const c of children.reverse()) {
      await c.stop();
      note(`stopped ${c.name}`);
    }
    if (cp) {
      await cp.stop();
      note('stopped the control plane');
    }
    // devnode unmounts what it mounted; this is for a devnode that could not.
    await unmountUnder(dir).catch((err: unknown) => say(`warning: ${(err as Error).message}`));
    await lock.release();
  }
}

/**
 * Waits until the API on 127.0.0.1:`port` answers an authenticated call with this run's
 * admin key, and the socket that answered is our API process's own: a status code alone
 * would also come from another program on the port. Fails at once if our API process dies
 * meanwhile (its log says why).
 */
async function waitForOurApi(
  port: number,
  adminKey: string,
  api: Supervised,
  stopping: AbortSignal,
): Promise<void> {
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + API_START_TIMEOUT_MS;
  let last: string;
  for (;;) {
    stopping.throwIfAborted();
    const pid = api.pid;
    if (pid === undefined || api.restarts > 0) {
      const log = await readFile(api.logPath, 'utf8').catch(() => '');
      if (log.includes('EADDRINUSE'))
        throw new Error(
          `port ${port} on 127.0.0.1 was taken by another program while make dev was starting. ` +
            `Stop it, or choose another port: make dev PORT=${port + 1}`,
        );
      throw new Error(
        `the API exited while starting; the end of ${api.logPath}:\n${log.trimEnd().split('\n').slice(-15).join('\n')}`,
      );
    }
    try {
      const res = await fetch(`${url}/api/v1/sandboxes`, {
        headers: { 'x-api-key': adminKey },
        signal: AbortSignal.timeout(5_000),
      });
      await res.body?.cancel();
      if (res.status === 200 && (await listensOn(pid, port))) return;
      last = res.status === 200 ? `HTTP 200 from a process that is not our API` : `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline)
      throw new Error(
        `the API at ${url} did not answer in ${API_START_TIMEOUT_MS / 1000} s (${last}; see ${api.logPath})`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The admission webhook on 127.0.0.1 with a serving certificate from the harness's CA,
 * registered (again on every run: the port and CA are new) with failurePolicy Fail, as a
 * cluster would run it, so `kubectl apply` in dev meets governance and gets its createdBy.
 */
async function startWebhook(
  cp: Awaited<ReturnType<typeof startControlPlane>>,
  dir: string,
  start: (args: string[]) => Promise<unknown>,
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
  await eventually(() => reachable(port), {
    timeoutMs: 60_000,
    describe: () => `the webhook on 127.0.0.1:${port} (see ${join(dir, 'logs', 'webhook.log')})`,
  });
  const admission = cp.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const { mutating, validating } = webhookConfigurations({
    failurePolicy: 'Fail',
    caBundle: cp.ca.pem,
    target: { url: `https://127.0.0.1:${port}` },
    // The operator signs in as its ServiceAccount (signIn above), as in a cluster.
    operatorUsername: `system:serviceaccount:${SERVICE_NAMESPACE}:svc-operator`,
    apiUsername: API_USER,
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

process.exitCode = await main();
