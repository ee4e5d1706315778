// How sandboxd reaches a sandbox on the real node (issue 39, deliverable 3), through the public
// API: whatever the chart's `operator.sandboxdDelivery`, sandboxd answers (`echo hi`) and its
// folder is mounted read-only in the sandbox, so the sandbox's code cannot replace the binary
// it runs under. With `csi` the Pod has no init container at all (one container start and one
// kubelet relist less per cold create): sandboxd is the node plugin's read-only bind of one
// folder, of the digest the operator's own sandboxd has. The installed delivery is read from
// the operator's Deployment (the admin kubeconfig: a check, not the subject).
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../clients/typescript/index.ts';
import { e2eEnv, sandboxName, sandboxObjects, svcClient } from './support/index.ts';

const alice = svcClient('alice');
const name = sandboxName('e2e-deliver');

function admin(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(e2eEnv().kubeconfig);
  return kc;
}

/** `--sandboxd-delivery` of the installed operator (the chart's `operator.sandboxdDelivery`). */
async function installedDelivery(): Promise<string> {
  const d = await admin()
    .makeApiClient(AppsV1Api)
    .readNamespacedDeployment({ name: 'svc-operator', namespace: 'svc-system' });
  const arg = d.spec?.template.spec?.containers[0]?.args?.find((a) => a.startsWith('--sandboxd-delivery='));
  return arg?.slice('--sandboxd-delivery='.length) ?? 'initContainer';
}

async function sandboxPod() {
  const pod = (await sandboxObjects(name)).find((o) => o.startsWith('Pod/'))!.slice('Pod/'.length);
  return admin().makeApiClient(CoreV1Api).readNamespacedPod({ name: pod, namespace: e2eEnv().namespace });
}

beforeAll(async () => {
  await alice.createSandbox({ name, mode: 'code', templateRef: { name: 'default' } });
  await alice.waitForPhase(name, 'Running', { timeoutMs: 240_000 });
}, 300_000);

afterAll(async () => {
  await alice.deleteSandbox(name).catch((err: unknown) => {
    if (!(err instanceof NotFoundError)) throw err;
  });
});

describe("sandboxd delivered by the chart's delivery on the real node", () => {
  it('csi: no init container, sandboxd a read-only inline volume of sandboxd.svc.io; else the init container copied it', async () => {
    const delivery = await installedDelivery();
    const pod = await sandboxPod();
    const volume = pod.spec?.volumes?.find((v) => v.name === 'svc-bin');
    if (delivery === 'csi') {
      expect(pod.spec?.initContainers ?? []).toEqual([]);
      expect(volume?.csi).toMatchObject({ driver: 'sandboxd.svc.io', readOnly: true });
      expect(Object.keys(volume?.csi?.volumeAttributes ?? {})).toEqual(['sha256']);
      expect(volume?.csi?.volumeAttributes?.sha256).toMatch(/^[0-9a-f]{64}$/);
      // The node's plugin (the chart's DaemonSet) serves it: Ready on every node.
      const ds = await admin()
        .makeApiClient(AppsV1Api)
        .readNamespacedDaemonSet({ name: 'svc-sandboxd-csi', namespace: 'svc-system' });
      expect(ds.status?.numberReady).toBe(ds.status?.desiredNumberScheduled);
    } else if (delivery === 'imageVolume') {
      expect(pod.spec?.initContainers ?? []).toEqual([]);
      expect(volume?.image?.reference).toMatch(/svc/);
    } else {
      expect(pod.spec?.initContainers?.map((c) => c.name)).toEqual(['install-sandboxd']);
    }
    expect(pod.spec?.containers[0]?.volumeMounts).toContainEqual({
      name: 'svc-bin',
      mountPath: '/opt/svc',
      readOnly: true,
    });
  });

  it('sandboxd answers: exec `echo hi` prints "hi\\n", exit code 0', async () => {
    const r = await alice.execSandbox(name, { command: ['echo', 'hi'] });
    expect(r).toMatchObject({ exitCode: 0, stdout: 'hi\n', stderr: '' });
  });

  it("sandboxd's folder is a read-only mount inside the sandbox: a write to it fails", async () => {
    const mount = await alice.execSandbox(name, {
      command: ['sh', '-c', 'awk \'$5 == "/opt/svc" {print $6}\' /proc/self/mountinfo'],
    });
    expect(mount.exitCode).toBe(0);
    expect(mount.stdout.trim().split(',')).toContain('ro');
    for (const write of ['cp /bin/true /opt/svc/sandboxd', 'touch /opt/svc/new']) {
      const r = await alice.execSandbox(name, { command: ['sh', '-c', write] });
      expect(r.exitCode, write).not.toBe(0);
      expect(r.stderr, write).toMatch(/Read-only file system|Permission denied/);
    }
    // The binary is still the one that runs.
    const still = await alice.execSandbox(name, {
      command: ['sh', '-c', 'test -x /opt/svc/sandboxd && echo ok'],
    });
    expect(still).toMatchObject({ exitCode: 0, stdout: 'ok\n' });
  });
});
