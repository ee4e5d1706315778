// `make dev` (hack/dev.ts) from nothing: it starts, writes .dev/env, serves /healthz, runs
// the admission webhook, keeps its state for a second run, and stops everything on Ctrl-C.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, expect, test } from 'vitest';
import { freePort, waitFor } from './controlplane/index.ts';

const dir = await mkdtemp(join(tmpdir(), 'svc-test-devnode-dev-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function runDev(port: number, during: (env: Record<string, string>) => Promise<void>) {
  const child = spawn('node_modules/.bin/node', ['hack/dev.ts', '--dir', dir, '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    await waitFor(() => Promise.resolve(output.includes('svc is running')), {
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
  return output;
}

test('make dev prints the URL and keys, writes .dev/env, serves, and keeps state across runs', async () => {
  const port = await freePort();
  const output = await runDev(port, async (env) => {
    expect(Object.keys(env).sort()).toEqual([
      'KUBECONFIG',
      'SVC_ADMIN_KEY',
      'SVC_ALICE_KEY',
      'SVC_BASE_URL',
      'SVC_BOB_KEY',
      'SVC_NAMESPACE',
    ]);
    expect(env.SVC_BASE_URL).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(`${env.SVC_BASE_URL}/healthz`)).status).toBe(200);
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
  expect(output).toContain('export KUBECONFIG=');

  // A second run finds the first run's sandbox, and the same keys still work.
  await runDev(port, async (env) => {
    let phase = '';
    await waitFor(
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
}, 300_000);
