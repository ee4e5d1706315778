// The e2e tier's one cluster: a real one (hack/cluster), svc installed on it by its own chart.
//
//   SVC_E2E_STATE=STATE   use that run (hack/cluster/up.sh's state folder) and leave it up;
//                         unset: bring one up (NODES=2), and take it down at the end
//   SVC_E2E_IMAGES=0      do not run hack/cluster/images.sh (the images are there already)
//   SVC_E2E_INSTALL=0     do not run hack/cluster/install.sh (svc is installed already, and
//                         STATE/svc.env says where)
//
// images.sh and install.sh are idempotent (a cached image is not imported twice, the chart
// is upgraded in place), so by default a run tests this checkout's image and chart.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { parseEnvFile, type E2eEnv } from './support/env.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    e2e: E2eEnv;
  }
}

const root = resolve(import.meta.dirname, '..');
const say = (line: string) => process.stderr.write(`e2e: ${line}\n`);

/** Runs a script with its progress (stderr) shown; resolves with its stdout. */
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

/** Runs `fn`, saying how long it took: the phase times the tier reports. */
async function timed<T>(phase: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await fn();
  say(`${phase}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.SVC_E2E_STATE?.replace(/\/$/, '');
  const ours = !given;
  let state = given ?? '';
  if (!given) {
    // up.sh records its run in .dev/cluster-state for `make cluster-down`; a person's own
    // cluster (make dev CLUSTER=real) named there must stay the one it names.
    const pointer = join(root, '.dev/cluster-state');
    const before = existsSync(pointer) ? await readFile(pointer, 'utf8') : undefined;
    try {
      state = await timed('cluster up (NODES=2)', () =>
        // The fork-bomb and disk-fill smoke checks are e2e/isolation.test.ts's own, through
        // svc's sandboxes; up.sh's would repeat them on busybox Pods.
        script([join(root, 'hack/cluster/up.sh')], {
          NODES: process.env.NODES ?? '2',
          CLUSTER_LIMITS_SMOKE: process.env.CLUSTER_LIMITS_SMOKE ?? '0',
        }),
      ).then((out) => out.trim().split('\n').at(-1)!);
    } finally {
      if (before === undefined) await rm(pointer, { force: true });
      else await writeFile(pointer, before);
    }
  }
  const teardown = async () => {
    if (ours) await timed('cluster down', () => script([join(root, 'hack/cluster/down.sh'), state]));
  };
  try {
    if (process.env.SVC_E2E_IMAGES !== '0') {
      await timed('images', () => script([join(root, 'hack/cluster/images.sh'), state]));
    }
    if (process.env.SVC_E2E_INSTALL !== '0') {
      await timed('install (helm, Pods Ready, API forwarder)', () =>
        script([join(root, 'hack/cluster/install.sh'), state]),
      );
    }
    const env = parseEnvFile(await readFile(join(state, 'svc.env'), 'utf8'));
    say(`svc at ${env.baseUrl} on ${state}`);
    project.provide('e2e', env);
  } catch (err) {
    await teardown();
    throw err;
  }
  return teardown;
}
