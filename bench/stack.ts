// The whole service as separate processes on the bench's control plane (devnode, operator,
// API), as `make dev` runs it: what bench/claim.ts, peer.ts, exec.ts, files.ts and terminal.ts
// time on. Each bench creates its own template on `kc`.
import { request, Agent } from 'node:http';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { ApiKeyStore } from '../api/index.ts';
import { GROUP, SandboxNamespaces, VERSION } from '../core/index.ts';
import { type Managed, startEnvironment, startManaged, startSvc } from '../stack/index.ts';
import { nodeOptionsOf } from '../cmd/node-options.ts';
import { Sight } from './sight.ts';
import { closingOnce } from './support.ts';

export const SERVICE_NAMESPACE = 'svc-system';
const root = join(import.meta.dirname, '..');

export interface Stack {
  kc: KubeConfig;
  kubeconfigPath: string;
  namespace: string;
  dir: string;
  /** The API's address, `http://127.0.0.1:<port>`. */
  base: string;
  /** An API key (user `bench`) for the `x-api-key` header. */
  key: string;
  custom: CustomObjectsApi;
  /** POST /api/v1/sandboxes; resolves with the status code. */
  create(body: object): Promise<number>;
  /** Resolves when the watch has seen Sandbox `name` Running (ms since `performance.timeOrigin`). */
  running(name: string): Promise<number>;
  deleteSandbox(name: string): Promise<void>;
  start(name: string, binary: string, args: string[]): Managed;
  close(failed: boolean): Promise<void>;
}

export async function startStack(namespace: string): Promise<Stack> {
  const env = await startEnvironment();
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-stack-'));
  const children: Managed[] = [];
  const agent = new Agent({ keepAlive: true });
  const held: { watch?: Sight } = {};
  let closeFailed = false;
  // From here every way out stops what was started: the bench's end, a signal, or a step of
  // this set-up failing (`guarded`).
  const close = closingOnce(() => stop(closeFailed));
  const guarded = async <T>(step: Promise<T>): Promise<T> => {
    try {
      return await step;
    } catch (err) {
      closeFailed = true;
      await close();
      throw err;
    }
  };
  const kc = env.kubeConfig;
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  await guarded(core.createNamespace({ body: { metadata: { name: SERVICE_NAMESPACE } } }));
  await guarded(
    core.createNamespace({
      body: {
        metadata: { name: namespace, labels: { [SandboxNamespaces.label]: SandboxNamespaces.enabled } },
      },
    }),
  );
  const { key } = await guarded(
    new ApiKeyStore({ kc, namespace: SERVICE_NAMESPACE }).create({ user: 'bench' }),
  );
  await mkdir(join(dir, 'logs'));
  const start = (name: string, binary: string, args: string[]) => {
    const m = startManaged(name, binary, args, join(dir, 'logs', `${name}.log`));
    children.push(m);
    return m;
  };
  const svc = (name: string, args: string[]) =>
    start(name, process.execPath, [
      ...nodeOptionsOf(name),
      join(root, 'cmd/svc.ts'),
      name,
      ...['--kubeconfig', env.kubeconfigPath, '--log-level', 'warn'],
      // devnode's address annotations are where previews and sandboxd are reached.
      ...(name === 'devnode' ? [] : ['--devnode', 'true']),
      ...args,
    ]);
  svc('devnode', ['--node-name', 'devnode-bench', '--data-dir', join(dir, 'devnode')]);
  svc('operator', ['--service-namespace', SERVICE_NAMESPACE, '--sandboxd-image', 'svc:bench']);
  const api = await guarded(
    startSvc(
      [
        'api',
        ...['--kubeconfig', env.kubeconfigPath, '--log-level', 'warn', '--devnode', 'true'],
        ...['--listen', '127.0.0.1:0'],
        ...['--service-namespace', SERVICE_NAMESPACE, '--default-namespace', namespace],
        ...['--auth.devAuth', 'true'],
      ],
      { logPath: join(dir, 'logs', 'api.log'), nodeOptions: nodeOptionsOf('api') },
    ),
  );
  children.push(api);
  const { port } = api;
  const call = (method: string, path: string, body?: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        `http://127.0.0.1:${port}${path}`,
        {
          method,
          agent,
          headers: {
            'x-api-key': key,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  // One watch on the namespace's Sandboxes: the first Running each one shows, timestamped.
  const seen = new Map<string, number>();
  const waiters = new Map<string, (at: number) => void>();
  const sight = await guarded(
    Sight.open(
      kc,
      `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/sandboxes`,
      (_type, obj: { metadata?: { name?: string }; status?: { phase?: string } }) => {
        const name = obj.metadata?.name ?? '';
        if (obj.status?.phase !== 'Running' || seen.has(name)) return;
        const at = performance.now();
        seen.set(name, at);
        waiters.get(name)?.(at);
      },
    ),
  );
  held.watch = sight;
  const sandboxes = { group: GROUP, version: VERSION, plural: 'sandboxes', namespace };
  return {
    kc,
    kubeconfigPath: env.kubeconfigPath,
    namespace,
    dir,
    base: `http://127.0.0.1:${port}`,
    key,
    custom,
    create: (body) => call('POST', `/api/v1/sandboxes?namespace=${namespace}`, JSON.stringify(body)),
    running: (name) => {
      const at = seen.get(name);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name} never Running`)), 120_000);
        waiters.set(name, (t) => {
          clearTimeout(timer);
          resolve(t);
        });
        sight.lost.catch((err: Error) => {
          clearTimeout(timer);
          reject(err);
        });
      });
    },
    deleteSandbox: async (name) => {
      await custom.deleteNamespacedCustomObject({ ...sandboxes, name }).catch(() => undefined);
    },
    start,
    close: (failed) => {
      closeFailed ||= failed;
      return close();
    },
  };

  async function stop(failed: boolean): Promise<void> {
    {
      held.watch?.stop();
      agent.destroy();
      // The API first, devnode last: on SIGTERM it stops its Pods and unmounts their roots.
      for (const c of children.reverse()) await c.stop(c.name === 'devnode' ? 60_000 : 10_000);
      if (failed) {
        for (const c of children) {
          const log = await readFile(join(dir, 'logs', `${c.name}.log`), 'utf8').catch(() => '');
          console.error(
            `--- last lines of ${c.name}'s log ---\n${log.trimEnd().split('\n').slice(-40).join('\n')}`,
          );
        }
      }
      await env.dispose();
      await rm(dir, { recursive: true, force: true });
    }
  }
}
