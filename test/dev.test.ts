// `make dev` (hack/dev.ts) from nothing: it starts, writes .dev/env, serves /healthz, runs
// the admission webhook, keeps its state for a second run, and stops everything on Ctrl-C
// (SIGINT to its whole process group, as a terminal sends it, exits 0),
// leaving no mount behind. It refuses at once a port in use and a second `make dev` on the
// same folder, and never prints its banner for a server that is not its own.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, expect, test } from 'vitest';
import { mountsUnder } from '../devnode/index.ts';
import { eventually, freePort } from '../stack/index.ts';
import { readmeShellBlocks } from './support/readme.ts';

const dir = await mkdtemp(join(tmpdir(), 'svc-test-devnode-dev-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const exec = promisify(execFile);

/** `make dev` run to its end (it is expected to refuse): exit code, output, seconds taken. */
async function devRefusal(args: string[]): Promise<{ code: number | null; output: string; seconds: number }> {
  const started = performance.now();
  const child = spawn('node_modules/.bin/node', ['hack/dev.ts', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  // A make dev that does not refuse (the bug) is stopped, so a failing test leaves nothing running.
  const overdue = setTimeout(() => child.kill('SIGINT'), 60_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(overdue);
  return { code, output, seconds: (performance.now() - started) / 1000 };
}

async function runDev(port: number, during: (env: Record<string, string>) => Promise<void>) {
  const child = spawn('node_modules/.bin/node', ['hack/dev.ts', '--dir', dir, '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    await eventually(() => Promise.resolve(output.includes('svc is running')), {
      timeoutMs: 90_000,
      describe: () => `make dev output:\n${output}`,
    });
    const env = Object.fromEntries(
      [...(await readFile(join(dir, 'env'), 'utf8')).matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [
        m[1]!,
        m[2]!,
      ]),
    );
    await during(env);
  } finally {
    child.kill('SIGINT');
  }
  expect(await exited).toBe(0);
  // Stopped, it leaves nothing mounted (Pod roots, clones) and no lock.
  expect(await mountsUnder(dir)).toEqual([]);
  await expect(readFile(join(dir, 'dev.lock'))).rejects.toThrow(/ENOENT/);
  return output;
}

test('make dev prints the URL and keys, writes .dev/env, serves, and keeps state across runs', async () => {
  const port = await freePort();
  const output = await runDev(port, async (env) => {
    expect(Object.keys(env).sort()).toEqual([
      'KUBECONFIG',
      'PATH',
      'SVC_ADMIN_KEY',
      'SVC_ALICE_KEY',
      'SVC_BASE_URL',
      'SVC_BOB_KEY',
      'SVC_NAMESPACE',
      'SVC_OPERATOR_METRICS_URL',
    ]);
    // `source .dev/env` puts the kubectl hack/kube built on PATH.
    const kubectl = await exec('bash', [
      '-c',
      `source ${join(dir, 'env')} && command -v kubectl && kubectl get sandboxes -o name`,
    ]);
    expect(kubectl.stdout).toBe(`${env.PATH!.replace(/^"(.*):\$PATH"$/, '$1')}/kubectl\n`);
    // The operator serves its metrics for the dashboard's operator panels.
    const metrics = await fetch(env.SVC_OPERATOR_METRICS_URL!);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^svc_operator_leader 1$/m);

    // A second make dev on the same folder says so at once and disturbs nothing.
    const second = await devRefusal(['--dir', dir, '--port', String(await freePort())]);
    expect(second.code).toBe(1);
    expect(second.output).toMatch(
      /^make dev: one is already running on .* \(pid \d+, http:\/\/127\.0\.0\.1:\d+\)/,
    );
    // "At once" is the lock, read before anything starts (the output is that one line); the
    // bound only tells it from the 60 s start-up timeout it replaced, with room for a loaded machine.
    expect(second.seconds).toBeLessThan(45);
    expect((await fetch(`${env.SVC_BASE_URL}/healthz`)).status).toBe(200);

    expect(env.SVC_BASE_URL).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(`${env.SVC_BASE_URL}/healthz`)).status).toBe(200);

    // The README's examples, as a newcomer pastes them (from a checkout whose .dev is this one).
    const checkout = await mkdtemp(join(tmpdir(), 'svc-test-readme-'));
    await symlink(dir, join(checkout, '.dev'));
    const examples = (await readmeShellBlocks()).filter((b) => b.startsWith('source .dev/env'));
    expect(examples).toHaveLength(2);
    const ran = [];
    for (const block of examples) {
      const env = { ...process.env, KUBECONFIG: '', PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };
      ran.push(
        (await exec('bash', ['-euo', 'pipefail', '-c', block], { cwd: checkout, env, timeout: 120_000 }))
          .stdout,
      );
    }
    await rm(checkout, { recursive: true, force: true });
    expect(ran[0]).toMatch(
      /sandbox\.svc\.io\/hello condition met\n\{"sandboxId":"hello","name":"hello","namespace":"default","apiVersion":"svc\.io\/v1alpha1".*"phase":"Running"/,
    );
    expect(ran[0]).toMatch(/\nhello +code +Running +default /);
    // Every event of a run carries its SSE id (replay with Last-Event-ID, docs/api.md "Runs").
    expect(ran[1]).toMatch(
      /\nid: 2\nevent: log\ndata: \{"stream":"stdout","data":"HELLO\\n"\}\n\nid: 3\nevent: exit\n/,
    );
    expect(ran[1]).toMatch(/"exitCode":0,"durationMs":\d+,"reason":"completed"/);
    const created = await fetch(`${env.SVC_BASE_URL}/api/v1/sandboxes`, {
      method: 'POST',
      headers: { 'x-api-key': env.SVC_ALICE_KEY!, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'first-run', templateRef: { name: 'minimal' } }),
    });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { spec: { createdBy: string } }).spec.createdBy).toBe('alice');

    // The webhook is registered: a direct write gets the writer as createdBy, whatever it said.
    const kc = new KubeConfig();
    kc.loadFromFile(env.KUBECONFIG!);
    const direct = (await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: 'svc.io',
      version: 'v1alpha1',
      plural: 'sandboxes',
      namespace: env.SVC_NAMESPACE!,
      body: {
        apiVersion: 'svc.io/v1alpha1',
        kind: 'Sandbox',
        metadata: { name: 'by-kubectl' },
        spec: { templateRef: { name: 'minimal' }, stopped: true, createdBy: 'mallory' },
      },
    })) as { spec: { createdBy: string } };
    expect(direct.spec.createdBy).toBe('svc-admin');
  });
  expect(output).toContain('admin key: svc_');
  // The line that signs sbx in (docs/cli.md), with alice's key.
  expect(output).toMatch(
    /\n {2}sbx: +dist\/sbx login http:\/\/127\.0\.0\.1:\d+ --api-key svc_\S+ --name dev /,
  );
  expect(output).toContain(`source ${join(dir, 'env')}`);
  // Progress while it starts, before the banner.
  const banner = output.indexOf('svc is running');
  const steps = ['starting the control plane', 'starting the admission webhook', 'waiting for the API'];
  const at = steps.map((step) => output.indexOf(step));
  expect(at.every((i) => i > -1 && i < banner)).toBe(true);

  // A second run finds the first run's sandbox, and the same keys still work.
  await runDev(port, async (env) => {
    let phase = '';
    await eventually(
      async () => {
        const res = await fetch(`${env.SVC_BASE_URL}/api/v1/sandboxes/first-run`, {
          headers: { 'x-api-key': env.SVC_ALICE_KEY! },
        });
        phase = ((await res.json()) as { status?: { phase?: string } }).status?.phase ?? '';
        return phase === 'Running';
      },
      { timeoutMs: 60_000, describe: () => `first-run phase: ${phase}` },
    );
  });

  // Ctrl-C while it is still starting (devnode already runs the sandboxes' Pods): it stops
  // what it started, and nothing stays mounted.
  const child = spawn('node_modules/.bin/node', ['hack/dev.ts', '--dir', dir, '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let third = '';
  child.stdout.on('data', (c: Buffer) => (third += c.toString()));
  child.stderr.on('data', (c: Buffer) => (third += c.toString()));
  const exited = once(child, 'exit');
  await eventually(async () => third.includes('starting devnode') && (await mountsUnder(dir)).length > 0, {
    timeoutMs: 90_000,
    intervalMs: 20,
    describe: () => third,
  });
  child.kill('SIGINT');
  expect(((await exited) as [number | null])[0]).toBe(0);
  expect(third).toMatch(/stopping/);
  expect(await mountsUnder(dir)).toEqual([]);
}, 400_000);

test('Ctrl-C in a terminal (SIGINT to the whole process group) stops cleanly: exit 0, a line per component, no mount', async () => {
  // A terminal's Ctrl-C reaches every process of the foreground group at once: make dev and
  // each component it started, so components may exit on their own before they are stopped.
  const dir4 = await mkdtemp(join(tmpdir(), 'svc-test-devnode-dev-ctrlc-'));
  const child = spawn(
    'node_modules/.bin/node',
    ['hack/dev.ts', '--dir', dir4, '--port', String(await freePort())],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  try {
    await eventually(() => Promise.resolve(output.includes('svc is running') || child.exitCode !== null), {
      timeoutMs: 150_000,
      describe: () => `make dev output:\n${output}`,
    });
    expect(output).toContain('svc is running');
    process.kill(-child.pid!, 'SIGINT');
    const overdue = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 90_000);
    const [code, signal] = await exited;
    clearTimeout(overdue);
    expect([code, signal], output).toEqual([0, null]);
    expect(output).not.toMatch(/AbortError|DOMException|\n\s+at /);
    for (const name of ['webhook', 'devnode', 'operator', 'api', 'the control plane'])
      expect(output).toMatch(new RegExp(`\\] stopped ${name}\\b`));
    expect(output).not.toMatch(/restarting it/);
    const mountinfo = await readFile('/proc/self/mountinfo', 'utf8');
    expect(mountinfo.split('\n').filter((l) => l.includes(dir4))).toEqual([]);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    }
    await rm(dir4, { recursive: true, force: true }).catch(() => undefined);
  }
}, 300_000);

test('a port in use is refused at once, with what to do', async () => {
  const server = createServer((_, res) => res.end('{"status":"ok"}'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  try {
    const dir2 = await mkdtemp(join(tmpdir(), 'svc-test-devnode-dev-port-'));
    const refused = await devRefusal(['--dir', dir2, '--port', String(port)]);
    await rm(dir2, { recursive: true, force: true });
    expect(refused.code).toBe(1);
    expect(refused.output).toBe(
      `make dev: port ${port} on 127.0.0.1 is already in use by another program. Stop it, or choose another port: make dev PORT=${port + 1}\n`,
    );
    // The exact output above shows nothing was started; the bound only tells the refusal from
    // the 60 s start-up timeout, with room for a machine running two test suites.
    expect(refused.seconds).toBeLessThan(45);
  } finally {
    server.close();
  }
});

test('PORT chooses the port (make dev PORT=9090)', async () => {
  const { stdout } = await exec('make', ['-n', '--no-print-directory', 'dev', 'PORT=9090']);
  expect(stdout).toContain("hack/dev.ts --port '9090'");
  const bad = await devRefusal(['--dir', dir, '--port', '80x']);
  expect([bad.code, bad.output]).toEqual([
    1,
    'make dev: PORT must be a TCP port number (1-65535), not "80x"\n',
  ]);
});

test("the banner is never printed for another program's server on the port", async () => {
  // Someone takes the port after make dev looked at it: every request there answers 200.
  const dir3 = await mkdtemp(join(tmpdir(), 'svc-test-devnode-dev-foreign-'));
  const port = await freePort();
  const foreign = createServer((_, res) => res.end('{"status":"ok","items":[]}'));
  const child = spawn('node_modules/.bin/node', ['hack/dev.ts', '--dir', dir3, '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = once(child, 'exit');
  try {
    await eventually(() => Promise.resolve(output.includes('starting the control plane')), {
      timeoutMs: 30_000,
      describe: () => output,
    });
    await new Promise<void>((r) => foreign.listen(port, '127.0.0.1', r));
    // Printing the banner (the bug) would leave it running: stop it then, so the test fails rather than hangs.
    await eventually(() => Promise.resolve(child.exitCode !== null || output.includes('svc is running')), {
      timeoutMs: 150_000,
      describe: () => output,
    });
    if (child.exitCode === null) child.kill('SIGINT');
    const [code] = (await exited) as [number | null];
    expect(output).not.toContain('svc is running');
    expect(code).toBe(1);
    expect(output).toContain(
      `make dev: port ${port} on 127.0.0.1 was taken by another program while make dev was starting. Stop it, or choose another port: make dev PORT=${port + 1}\n`,
    );
    expect(await mountsUnder(dir3)).toEqual([]);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      await exited;
    }
    foreign.close();
    await rm(dir3, { recursive: true, force: true });
  }
}, 180_000);
