// What the e2e tests do to the cluster itself, beside the public API: kubectl as a person
// would run it (the run's STATE/kubectl), the run's own network namespaces, and forwarders
// from 127.0.0.1 to one Pod (hack/cluster/forward.sh). Each helper acts on the run the
// global setup was given and nothing else.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { e2eEnv } from './cluster.ts';

const root = resolve(import.meta.dirname, '../..');

/** Where hack/cluster/install.sh installs the chart: its release and namespace. */
export const controlPlane = { release: 'svc', namespace: 'svc-system' } as const;

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end with `input` on stdin; never throws for a non-zero exit. */
export function run(file: string, args: string[], input = ''): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** `STATE/kubectl ARGS` (the run's admin, in the control plane's namespace), stdin `input`. */
export function kubectl(args: string[], input = ''): Promise<Ran> {
  return run(join(e2eEnv().state, 'kubectl'), args, input);
}

/** Like `kubectl`, but throws with its stderr unless it exits 0; resolves with stdout. */
export async function kubectlOk(args: string[], input = ''): Promise<string> {
  const r = await kubectl(args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/** The run's variables (STATE/env: RUN, NODES, NET, …). */
export async function runEnv(): Promise<Record<string, string>> {
  const text = await readFile(join(e2eEnv().state, 'env'), 'utf8');
  const vars: Record<string, string> = {};
  for (const m of text.matchAll(/^([A-Z_]+)=(.*)$/gm)) vars[m[1]!] = m[2]!.replace(/^"(.*)"$/, '$1');
  return vars;
}

export interface Forwarder {
  /** http://127.0.0.1:PORT */
  url: string;
  stop(): Promise<void>;
}

/**
 * A forwarder from 127.0.0.1 to `target` (ADDR:PORT, e.g. one Pod's IP) dialled from node
 * `node`'s network namespace, where Pod addresses route: hack/cluster/forward.sh under a
 * name of its own, so a test never shares one. `stop` ends it (down.sh would too).
 */
export async function forwardTo(node: string, target: string): Promise<Forwarder> {
  const { state } = e2eEnv();
  const { RUN } = await runEnv();
  const name = `e2e-${randomBytes(3).toString('hex')}`;
  const { stdout } = await promisify(execFile)(
    'bash',
    [join(root, 'hack/cluster/forward.sh'), state, name, `svcc-${RUN}-${node}`, target],
    { cwd: root },
  );
  const port = stdout.trim().split('\n').at(-1)!;
  const pidfile = join(state, 'pids', `forward-${name}`);
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      const pid = Number(await readFile(pidfile, 'utf8').catch(() => ''));
      if (pid > 0) {
        try {
          process.kill(pid);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
        }
      }
      await rm(pidfile, { force: true });
      await rm(join(state, `forward-${name}.port`), { force: true });
    },
  };
}
