// The real cluster a bench runs on (`CLUSTER=real`): a hack/cluster run with svc installed
// by its own chart, as the e2e tier has it (e2e/global-setup.ts), from the bench's process.
//
//   SVC_E2E_STATE=STATE   use that run (up.sh's state folder) and leave it up; unset: bring
//                         one up (NODES, default 2) and take it down on every way out
//   SVC_E2E_IMAGES=0      skip hack/cluster/images.sh (the images are there already)
//   SVC_E2E_INSTALL=0     skip hack/cluster/install.sh (svc is installed, STATE/svc.env says where)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parseEnvFile, type E2eEnv } from '../e2e/support/env.ts';
import { closingOnce } from './support.ts';

const root = join(import.meta.dirname, '..');
const say = (line: string) => process.stderr.write(`bench: ${line}\n`);

export interface RealCluster {
  state: string;
  /** The installed svc: its API's URL and keys (STATE/svc.env). */
  env: E2eEnv;
  /** Admin access through 127.0.0.1 (STATE/host.kubeconfig), for what a client cannot do. */
  kc: KubeConfig;
  /** The run's node names (n1, n2, …) and their network namespaces' prefix. */
  nodes: string[];
  run: string;
  /** Adds a step `close` runs first (the bench's own objects); they run last added first. */
  beforeClose(step: () => Promise<void>): void;
  /**
   * The bench's steps, then down.sh for a cluster the bench brought up (a given one stays);
   * once, whoever asks first: the bench's end, a failed step, SIGINT or SIGTERM.
   */
  close(): Promise<void>;
}

/** Runs a script with its progress (stderr) shown; resolves with its stdout. */
export function script(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
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

async function timed<T>(phase: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await fn();
  say(`${phase}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/** The cluster (given, or brought up with `nodes` nodes), imaged and installed. */
export async function startRealCluster(nodes: number): Promise<RealCluster> {
  const given = process.env.SVC_E2E_STATE?.replace(/\/$/, '');
  let state = given ?? '';
  const steps: (() => Promise<void>)[] = [];
  // From here every way out takes down what the bench brought up: its end, a signal, a
  // failed step.
  const close = closingOnce(async () => {
    for (const step of steps.reverse()) await step().catch((err: unknown) => console.error(err));
    if (!given && state)
      await timed('cluster down', () => script([join(root, 'hack/cluster/down.sh'), state]));
  });
  try {
    if (!given) {
      // up.sh names its run in .dev/cluster-state for `make cluster-down`: a person's own
      // cluster named there stays the one it names.
      const pointer = join(root, '.dev/cluster-state');
      const before = existsSync(pointer) ? await readFile(pointer, 'utf8') : undefined;
      try {
        state = await timed(`cluster up (NODES=${nodes})`, () =>
          script([join(root, 'hack/cluster/up.sh')], {
            NODES: String(nodes),
            CLUSTER_LIMITS_SMOKE: process.env.CLUSTER_LIMITS_SMOKE ?? '0',
          }),
        ).then((out) => out.trim().split('\n').at(-1)!);
      } finally {
        if (before === undefined) await rm(pointer, { force: true });
        else await writeFile(pointer, before);
      }
    }
    if (process.env.SVC_E2E_IMAGES !== '0')
      await timed('images', () => script([join(root, 'hack/cluster/images.sh'), state]));
    if (process.env.SVC_E2E_INSTALL !== '0')
      await timed('install', () => script([join(root, 'hack/cluster/install.sh'), state]));
    const env = parseEnvFile(await readFile(join(state, 'svc.env'), 'utf8'));
    const vars = await readFile(join(state, 'env'), 'utf8');
    const run = /^RUN=(\S+)$/m.exec(vars)?.[1]?.replace(/['"]/g, '');
    const nodeNames = /^NODES=['"]?([^'"\n]*)['"]?$/m.exec(vars)?.[1]?.split(' ').filter(Boolean);
    if (!run || !nodeNames?.length) throw new Error(`${state}/env names no RUN or NODES`);
    const kc = new KubeConfig();
    kc.loadFromFile(env.kubeconfig);
    say(`svc at ${env.baseUrl} on ${state} (nodes ${nodeNames.join(', ')})`);
    return { state, env, kc, nodes: nodeNames, run, beforeClose: (step) => steps.push(step), close };
  } catch (err) {
    await close();
    throw err;
  }
}
