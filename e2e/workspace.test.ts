// A workspace on a real cluster's CSI volume, through the public HTTP API only: a clone is
// restored from a real VolumeSnapshot with the same bytes, and stop/resume keeps it.
import { createHash, randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../clients/typescript/index.ts';
import { e2eEnv, sandboxName, sandboxObjects, svcClient } from './support/index.ts';

const alice = svcClient('alice');
const source = sandboxName('e2e-ws');
const clone = sandboxName('e2e-ws-clone');
const bytes = randomBytes(1024 * 1024);
const sha = createHash('sha256').update(bytes).digest('hex');

/** The sha256 of a workspace file, as the sandbox's own process computes it. */
async function shaInside(sandbox: string, path: string): Promise<string> {
  const r = await alice.execSandbox(sandbox, { command: ['sha256sum', path] });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.split(' ')[0]!;
}

beforeAll(async () => {
  await alice.createSandbox({ name: source, mode: 'code', templateRef: { name: 'default' } });
  await alice.waitForPhase(source, 'Running', { timeoutMs: 240_000 });
  await alice.writeFile(source, '/workspace/data/blob.bin', bytes);
}, 300_000);

afterAll(async () => {
  for (const s of [clone, source]) {
    await alice.deleteSandbox(s).catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
  }
});

describe('a workspace on a real CSI volume', () => {
  it('clone: restored from a VolumeSnapshot, the same bytes', async () => {
    await alice.cloneSandbox(source, { name: clone });
    await alice.waitForPhase(clone, 'Running', { timeoutMs: 240_000 });
    expect(await shaInside(clone, '/workspace/data/blob.bin')).toBe(sha);
    // The clone's claim was filled from a snapshot by the CSI driver, not copied by svc.
    const kc = new KubeConfig();
    kc.loadFromFile(e2eEnv().kubeconfig);
    const pvc = (await sandboxObjects(clone)).find((o) => o.startsWith('PersistentVolumeClaim/'))!;
    const claim = await kc.makeApiClient(CoreV1Api).readNamespacedPersistentVolumeClaim({
      name: pvc.slice('PersistentVolumeClaim/'.length),
      namespace: e2eEnv().namespace,
    });
    expect(claim.spec?.dataSource).toMatchObject({
      kind: 'VolumeSnapshot',
      apiGroup: 'snapshot.storage.k8s.io',
    });
    expect(claim.spec?.storageClassName).toBe('svc-local');
  });

  it('stop then resume: the Pod goes and comes back, the workspace stays', async () => {
    await alice.stopSandbox(source);
    await alice.waitForPhase(source, 'Stopped', { timeoutMs: 120_000 });
    await expect
      .poll(async () => (await sandboxObjects(source)).filter((o) => o.startsWith('Pod/')), {
        timeout: 120_000,
      })
      .toEqual([]);
    await alice.resumeSandbox(source);
    await alice.waitForPhase(source, 'Running', { timeoutMs: 240_000 });
    expect(await shaInside(source, '/workspace/data/blob.bin')).toBe(sha);
  });
});
