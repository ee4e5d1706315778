// A sandbox's life on a real cluster, through the public HTTP API only: created from the
// default template it runs as a real container (containerd, runc, a CSI volume), exec and
// files reach it, and delete leaves nothing behind.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../clients/typescript/index.ts';
import { e2eEnv, sandboxName, sandboxObjects, svcClient } from './support/index.ts';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';

const alice = svcClient('alice');
const name = sandboxName('e2e-life');

/** A Pod read as a check (the tests act through the API only). */
async function readPod(podName: string) {
  const kc = new KubeConfig();
  kc.loadFromFile(e2eEnv().kubeconfig);
  return kc.makeApiClient(CoreV1Api).readNamespacedPod({ name: podName, namespace: e2eEnv().namespace });
}

beforeAll(async () => {
  await alice.createSandbox({ name, mode: 'code', templateRef: { name: 'default' } });
  // Cold: a CSI volume provisioned on the node the scheduler picks, sandboxd mounted (or
  // copied by an init container), the template's image started by containerd.
  await alice.waitForPhase(name, 'Running', { timeoutMs: 240_000 });
}, 300_000);

afterAll(async () => {
  await alice.deleteSandbox(name).catch((err: unknown) => {
    if (!(err instanceof NotFoundError)) throw err;
  });
});

describe('a sandbox from the default template on a real cluster', () => {
  it('runs as a real container on one of the nodes, its workspace a CSI volume', async () => {
    const objects = await sandboxObjects(name);
    const pod = objects.find((o) => o.startsWith('Pod/'))!.slice('Pod/'.length);
    // svc says Running once sandboxd answers, which can be a moment before the kubelet's
    // readiness probe has run: the container's Ready follows within a probe period.
    await expect
      .poll(
        async () => (await readPod(pod)).status?.containerStatuses?.find((c) => c.name === 'sandbox')?.ready,
        {
          timeout: 30_000,
        },
      )
      .toBe(true);
    const p = await readPod(pod);
    expect(p.status?.phase).toBe('Running');
    expect(p.spec?.nodeName).toMatch(/^n\d$/);
    const main = p.status!.containerStatuses!.find((c) => c.name === 'sandbox')!;
    expect(main.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    expect(main.image).toBe('docker.io/library/debian:bookworm');
    // sandboxd came by the node plugin's CSI volume (`operator.sandboxdDelivery: csi`, the
    // chart's default; e2e/delivery.test.ts), an init container's copy (`initContainer`) or an
    // image volume of the svc image (`imageVolume`).
    if (p.spec?.initContainers) {
      const init = p.status!.initContainerStatuses!.find((c) => c.name === 'install-sandboxd')!;
      expect(init.state?.terminated?.exitCode).toBe(0);
    } else {
      const bin = p.spec?.volumes?.find((v) => v.name === 'svc-bin');
      expect(bin?.image?.reference ?? bin?.csi?.driver).toMatch(/svc/);
    }
    expect(objects).toEqual(expect.arrayContaining([expect.stringMatching(/^PersistentVolumeClaim\//)]));
  });

  it('exec `echo hi`: exactly "hi\\n" on stdout, exit code 0', async () => {
    const r = await alice.execSandbox(name, { command: ['echo', 'hi'] });
    expect(r).toMatchObject({ exitCode: 0, stdout: 'hi\n', stderr: '' });
  });

  it('a file written through the API reads back the same, and the sandbox sees the same bytes', async () => {
    const bytes = randomBytes(256 * 1024);
    const sha = createHash('sha256').update(bytes).digest('hex');
    await alice.writeFile(name, '/workspace/e2e/data.bin', bytes);
    const back = Buffer.from(await (await alice.readFile(name, '/workspace/e2e/data.bin')).arrayBuffer());
    expect(back.length).toBe(bytes.length);
    expect(createHash('sha256').update(back).digest('hex')).toBe(sha);
    const inside = await alice.execSandbox(name, { command: ['sha256sum', '/workspace/e2e/data.bin'] });
    expect(inside).toMatchObject({ exitCode: 0, stdout: `${sha}  /workspace/e2e/data.bin\n` });
  });

  it('delete: the sandbox is gone and so is every Pod, PVC, Service, Secret and NetworkPolicy it had', async () => {
    const before = await sandboxObjects(name);
    // What there is to clean up, so the check below is not vacuous.
    for (const kind of ['Pod', 'PersistentVolumeClaim', 'Secret', 'NetworkPolicy']) {
      expect(
        before.some((o) => o.startsWith(`${kind}/`)),
        `${kind} in ${before.join(', ')}`,
      ).toBe(true);
    }
    await alice.deleteSandbox(name);
    await expect
      .poll(
        async () => {
          try {
            await alice.getSandbox(name);
            return 'still there';
          } catch (err) {
            if (err instanceof NotFoundError) return 'gone';
            throw err;
          }
        },
        { timeout: 120_000, interval: 1_000 },
      )
      .toBe('gone');
    await expect.poll(() => sandboxObjects(name), { timeout: 120_000, interval: 1_000 }).toEqual([]);
  });
});
