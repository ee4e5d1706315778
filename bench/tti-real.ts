// bench-tti's real side: a cluster of hack/cluster with svc installed by its chart, as the e2e
// tier stands it up. BENCH_STATE=STATE uses a running one (its svc.env) and leaves it up;
// unset, the bench brings one up (NODES=1), builds and imports this checkout's images,
// installs the chart, and takes the cluster down on every way out (closingOnce).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { SvcClient } from '../clients/typescript/index.ts';
import { parseEnvFile } from '../e2e/support/env.ts';
import { closingOnce } from './support.ts';
import type { Side } from './tti.ts';

const root = resolve(import.meta.dirname, '..');

/** Runs a script of hack/cluster, its progress on stderr; resolves with its stdout. */
function script(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn('bash', args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0 ? done(out) : fail(new Error(`bash ${args.join(' ')} exited with ${code}`)),
    );
  });
}

export async function realCluster(): Promise<Side> {
  const given = process.env.BENCH_STATE?.replace(/\/$/, '');
  let state = given ?? '';
  if (!given) {
    // up.sh records its run in .dev/cluster-state (for make cluster-down); a person's own
    // cluster named there stays the one it names.
    const pointer = join(root, '.dev/cluster-state');
    const before = existsSync(pointer) ? await readFile(pointer, 'utf8') : undefined;
    try {
      const out = await script([join(root, 'hack/cluster/up.sh')], {
        NODES: process.env.NODES ?? '1',
        CLUSTER_LIMITS_SMOKE: '0',
      });
      state = out.trim().split('\n').at(-1)!;
    } finally {
      if (before === undefined) await rm(pointer, { force: true });
      else await writeFile(pointer, before);
    }
  }
  const down = closingOnce(async () => {
    if (!given) await script([join(root, 'hack/cluster/down.sh'), state]);
  });
  try {
    if (!given) {
      await script([join(root, 'hack/cluster/images.sh'), state]);
      await script([join(root, 'hack/cluster/install.sh'), state]);
    }
    const env = parseEnvFile(await readFile(join(state, 'svc.env'), 'utf8'));
    const kc = new KubeConfig();
    kc.loadFromFile(env.kubeconfig);
    // STATE/env names the nodes (`NODES="n1 n2"`); the first one's containerd is traced.
    const nodes = /^NODES="([^"]*)"/m.exec(await readFile(join(state, 'env'), 'utf8'))?.[1] ?? 'n1';
    const node = nodes.trim().split(/\s+/)[0];
    return {
      cluster: 'real',
      client: new SvcClient({ baseUrl: env.baseUrl, apiKey: env.keys.admin, namespace: env.namespace }),
      kc,
      namespace: env.namespace,
      containerd: join(state, node ?? 'n1', 'containerd.sock'),
      close: () => down(),
    };
  } catch (err) {
    await down();
    throw err;
  }
}
