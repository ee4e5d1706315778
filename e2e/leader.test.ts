// The operator killed mid-create on a real cluster (docs/multi-replica.md, "one leader"): the
// chart runs two operators, one holding the Lease. The leader's process is SIGKILLed on its
// node while a sandbox is being created (a crash: it cannot release the Lease), and its Pod
// force-deleted (so the kubelet does not restart it under the same name); the other replica
// must take the Lease once it lapses, and converge the half-made sandbox to Running with
// exactly one Pod and one claim.
import { afterAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../clients/typescript/index.ts';
import { e2eEnv, sandboxName, sandboxObjects, svcClient } from './support/index.ts';
import { controlPlane, kubectlOk, run } from './support/kube.ts';

const alice = svcClient('alice');
const name = sandboxName('e2e-lead');
const { namespace: cp, release } = controlPlane;

interface Lease {
  spec: { holderIdentity?: string; leaseDurationSeconds: number; leaseTransitions?: number };
}
interface Pod {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName: string };
  status: { containerStatuses?: { name: string; containerID?: string; ready: boolean }[] };
}

const lease = async () =>
  JSON.parse(await kubectlOk(['-n', cp, 'get', 'lease', `${release}-operator`, '-o', 'json'])) as Lease;
const operatorPods = async () =>
  (
    JSON.parse(
      await kubectlOk(['-n', cp, 'get', 'pods', '-l', 'app.kubernetes.io/component=operator', '-o', 'json']),
    ) as { items: Pod[] }
  ).items;

/** The host pid of a Pod's container, from its node's containerd (the nodes share the machine's pid namespace). */
async function hostPid(pod: Pod): Promise<number> {
  const id = pod.status.containerStatuses![0]!.containerID!.replace(/^containerd:\/\//, '');
  const sock = `${e2eEnv().state}/${pod.spec.nodeName}/containerd.sock`;
  const tasks = await run('ctr', ['--address', sock, '-n', 'k8s.io', 'task', 'ls']);
  expect(tasks.code, tasks.stderr).toBe(0);
  const line = tasks.stdout.split('\n').find((l) => l.startsWith(`${id} `));
  expect(line, `task ${id} on ${pod.spec.nodeName}`).toBeDefined();
  return Number(line!.trim().split(/\s+/)[1]);
}

const kinds = (objects: string[], kind: string) => objects.filter((o) => o.startsWith(`${kind}/`));

afterAll(async () => {
  await alice.deleteSandbox(name).catch((err: unknown) => {
    if (!(err instanceof NotFoundError)) throw err;
  });
  // Two operators again for the files that follow (the Deployment replaced the Pod).
  await kubectlOk(['-n', cp, 'rollout', 'status', `deployment/${release}-operator`, '--timeout=300s']);
}, 360_000);

describe('the operator replaced mid-create', () => {
  it('SIGKILL of the leader during a create: the other replica takes the Lease and the sandbox reaches Running with one Pod and one claim', async () => {
    const pods = (await operatorPods()).filter((p) => !p.metadata.deletionTimestamp);
    expect(pods.filter((p) => p.status.containerStatuses?.[0]?.ready)).toHaveLength(2);
    const before = await lease();
    const leader = pods.find((p) => p.metadata.name === before.spec.holderIdentity);
    expect(
      leader,
      `the Lease holder ${before.spec.holderIdentity} among ${pods.map((p) => p.metadata.name).join(', ')}`,
    ).toBeDefined();
    const pid = await hostPid(leader!);

    await alice.createSandbox({ name, mode: 'code', templateRef: { name: 'default' } });
    // Mid-create: the leader has made the sandbox's first objects, and it is not Running yet.
    await expect
      .poll(async () => kinds(await sandboxObjects(name), 'PersistentVolumeClaim').length, {
        timeout: 60_000,
        interval: 100,
      })
      .toBe(1);
    const killedAt = performance.now();
    process.kill(pid, 'SIGKILL');
    expect((await alice.getSandbox(name)).status?.phase).not.toBe('Running');
    await kubectlOk(['-n', cp, 'delete', 'pod', leader!.metadata.name, '--grace-period=0', '--force']);

    let holder = '';
    await expect
      .poll(
        async () => {
          holder = (await lease()).spec.holderIdentity ?? '';
          return holder !== '' && holder !== leader!.metadata.name;
        },
        { timeout: 120_000, interval: 250 },
      )
      .toBe(true);
    const takeover = (performance.now() - killedAt) / 1000;
    const after = await lease();
    console.log(
      `leader ${leader!.metadata.name} killed; ${holder} took the Lease ${takeover.toFixed(1)} s later ` +
        `(leaseDurationSeconds ${after.spec.leaseDurationSeconds}, transitions ${before.spec.leaseTransitions ?? 0} -> ${after.spec.leaseTransitions ?? 0})`,
    );
    // A crashed leader releases nothing: the Lease lapses first, then a candidate (retrying
    // every 2 s) takes it.
    expect(after.spec.leaseTransitions ?? 0).toBe((before.spec.leaseTransitions ?? 0) + 1);
    expect(takeover).toBeLessThan(after.spec.leaseDurationSeconds + 30);
    const now = (await operatorPods()).find((p) => p.metadata.name === holder);
    expect(now?.metadata.deletionTimestamp).toBeUndefined();

    await alice.waitForPhase(name, 'Running', { timeoutMs: 240_000 });
    const objects = await sandboxObjects(name);
    expect(kinds(objects, 'Pod'), objects.join(', ')).toHaveLength(1);
    expect(kinds(objects, 'PersistentVolumeClaim'), objects.join(', ')).toHaveLength(1);
    expect(await alice.execSandbox(name, { command: ['echo', 'hi'] })).toMatchObject({
      exitCode: 0,
      stdout: 'hi\n',
    });

    await alice.deleteSandbox(name);
    await expect.poll(() => sandboxObjects(name), { timeout: 120_000, interval: 1_000 }).toEqual([]);
  }, 600_000);
});
