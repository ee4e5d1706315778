// A real cluster of this machine with svc installed by its chart, brought up from TypeScript:
// the e2e tier's global setup (e2e/global-setup.ts) and the benches on a real cluster
// (bench/real.ts) both stand one up through this one module, so the two cannot drift.
//
//   SVC_E2E_STATE=STATE   use that run (up.sh's state folder) and leave it up; unset: bring
//                         one up (`nodes` nodes) and take it down in `down()`
//   SVC_E2E_IMAGES=0      skip images.sh (the images are there already)
//   SVC_E2E_INSTALL=0     skip install.sh (svc is installed already, STATE/svc.env says where)
//
// images.sh and install.sh are idempotent (a cached image is not imported twice, the chart
// is upgraded in place), so by default a run uses this checkout's image and chart. Each phase
// prints its time (`cluster up (NODES=2): 41.2 s`, `images: …`, `install (helm, Pods Ready,
// API forwarder): …`, `cluster down: …`): CI logs and the notes quote these lines.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseEnvFile, type ClusterEnv } from './env.ts';

export { parseEnvFile, type ClusterEnv } from './env.ts';

const root = resolve(import.meta.dirname, '../../..');

export interface BringUpOptions {
  /** Nodes of a cluster brought up here (a given one has its own). */
  nodes: number;
  /** Prints one progress line (the phase times): the caller's prefix, on stderr. */
  say: (line: string) => void;
  /** The folder of up.sh, images.sh, install.sh and down.sh (hack/cluster; tests give others). */
  scripts?: string;
  /** Variables over this process's own for the scripts. */
  env?: NodeJS.ProcessEnv;
}

/** What `up()` found or made: the run, svc's API and keys, the nodes' names. */
export interface Cluster {
  state: string;
  /** The installed svc: its API's URL and keys (STATE/svc.env). */
  env: ClusterEnv;
  /** The run's name (its network namespaces are `svcc-RUN-…`). */
  run: string;
  /** The run's node names (n1, n2, …). */
  nodes: string[];
}

/**
 * One cluster's life: `up()` brings it up (or takes the given one), images and installs svc;
 * `down()` takes down a cluster `up()` brought up, once, however often it is asked and
 * whenever (during `up()` too: what up.sh made so far is its state folder, which down.sh
 * removes). A failed `up()` takes down what it made before it throws.
 */
export class BringUp {
  readonly #opts: BringUpOptions;
  readonly #scripts: string;
  readonly #given: string | undefined;
  #state = '';
  #upping: Promise<void> | undefined;
  #down: Promise<void> | undefined;

  constructor(opts: BringUpOptions) {
    this.#opts = opts;
    this.#scripts = opts.scripts ?? resolve(import.meta.dirname, '..');
    this.#given = (opts.env?.SVC_E2E_STATE ?? process.env.SVC_E2E_STATE)?.replace(/\/$/, '') || undefined;
    this.#state = this.#given ?? '';
  }

  /** Whether the cluster is one this process brought up (and so takes down). */
  get ours(): boolean {
    return this.#given === undefined;
  }

  async up(): Promise<Cluster> {
    try {
      if (!this.#given) await (this.#upping = this.#upScript());
      if (this.#down) throw new Error('the cluster went down while it was brought up');
      const state = this.#state;
      if (this.#var('SVC_E2E_IMAGES') !== '0')
        await this.#timed('images', () => this.#script('images.sh', [state]));
      if (this.#var('SVC_E2E_INSTALL') !== '0')
        await this.#timed('install (helm, Pods Ready, API forwarder)', () =>
          this.#script('install.sh', [state]),
        );
      const env = parseEnvFile(await readFile(join(state, 'svc.env'), 'utf8'));
      const vars = await readFile(join(state, 'env'), 'utf8');
      const run = /^RUN=['"]?([^'"\s]+)['"]?$/m.exec(vars)?.[1];
      const nodes = /^NODES=['"]?([^'"\n]*)['"]?$/m.exec(vars)?.[1]?.split(' ').filter(Boolean);
      if (!run || !nodes?.length) throw new Error(`${state}/env names no RUN or NODES`);
      this.#opts.say(`svc at ${env.baseUrl} on ${state}`);
      return { state, env, run, nodes };
    } catch (err) {
      await this.down().catch((e: unknown) => this.#opts.say(`cluster down failed: ${String(e)}`));
      throw err;
    }
  }

  /** down.sh for a cluster `up()` brought up; nothing for a given one. Once. */
  down(): Promise<void> {
    this.#down ??= (async () => {
      // Asked while up.sh runs (a signal): its state folder is known once it ends.
      await this.#upping?.catch(() => undefined);
      if (this.#given || !this.#state) return;
      const state = this.#state;
      await this.#timed('cluster down', () => this.#script('down.sh', [state]));
    })();
    return this.#down;
  }

  async #upScript(): Promise<void> {
    const nodes = this.#opts.nodes;
    // up.sh names its run in .dev/cluster-state for `make cluster-down`: a person's own
    // cluster (make dev CLUSTER=real) named there stays the one it names.
    const pointer = join(root, '.dev/cluster-state');
    const before = existsSync(pointer) ? await readFile(pointer, 'utf8') : undefined;
    try {
      const out = await this.#timed(`cluster up (NODES=${nodes})`, () =>
        // The fork-bomb and disk-fill smoke checks are e2e/isolation.test.ts's own, through
        // svc's sandboxes; up.sh's would repeat them on busybox Pods.
        this.#script('up.sh', [], {
          NODES: String(nodes),
          CLUSTER_LIMITS_SMOKE: this.#var('CLUSTER_LIMITS_SMOKE') ?? '0',
        }),
      );
      this.#state = out.trim().split('\n').at(-1) ?? '';
      if (!this.#state) throw new Error('up.sh printed no state folder');
    } finally {
      if (before === undefined) await rm(pointer, { force: true });
      else await writeFile(pointer, before);
    }
  }

  #var(name: string): string | undefined {
    return this.#opts.env?.[name] ?? process.env[name];
  }

  /** Runs `fn`, saying how long it took: the phase times. */
  async #timed<T>(phase: string, fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await fn();
    this.#opts.say(`${phase}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return result;
  }

  #script(name: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
    return script([join(this.#scripts, name), ...args], { ...this.#opts.env, ...env });
  }
}

/** Runs a bash script with its progress (stderr) shown; resolves with its stdout. */
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
