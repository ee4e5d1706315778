// A warm pool on a real cluster: a SandboxWarmPool (made with kubectl, as docs/warmpool.md
// says a platform team does) fills with a ready member, a create through the public API that
// matches it adopts that member's Pod (same uid), its sandboxd takes the sandbox's token
// (the member's is refused, by packets from inside the Pod), and the pool makes a new member.
// The pool's template is the test's own, so no other file's create can claim its member.
import { randomBytes } from 'node:crypto';
import { CoreV1Api, CustomObjectsApi, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../clients/typescript/index.ts';
import { e2eEnv, kubectl, sandboxName, sandboxObjects, svcClient, waitUntil } from './support/index.ts';

const alice = svcClient('alice');
const suffix = randomBytes(3).toString('hex');
const template = `e2e-warm-${suffix}`;
const pool = `e2e-warm-${suffix}`;
const claimer = sandboxName('e2e-warm');
const cold = sandboxName('e2e-warm-cold');
const GROUP = { group: 'svc.io', version: 'v1alpha1' };

interface PoolStatus {
  replicas?: number;
  readyReplicas?: number;
  conditions?: { type: string; status: string; reason?: string }[];
}

function kube() {
  const kc = new KubeConfig();
  kc.loadFromFile(e2eEnv().kubeconfig);
  return { core: kc.makeApiClient(CoreV1Api), custom: kc.makeApiClient(CustomObjectsApi) };
}

async function poolStatus(): Promise<PoolStatus> {
  const p = (await kube().custom.getNamespacedCustomObject({
    ...GROUP,
    plural: 'sandboxwarmpools',
    namespace: e2eEnv().namespace,
    name: pool,
  })) as { status?: PoolStatus };
  return p.status ?? {};
}

/** The pool's unclaimed members (Pods under its label), none going away. */
async function members(): Promise<V1Pod[]> {
  const pods = await kube().core.listNamespacedPod({
    namespace: e2eEnv().namespace,
    labelSelector: `svc.io/warm-pool=${pool}`,
  });
  return pods.items.filter((p) => !p.metadata?.deletionTimestamp);
}

/** What the pool made (its members' Pods, claims and Secrets, its policy), as `Kind/name`. */
async function poolObjects(): Promise<string[]> {
  const { core } = kube();
  const q = { namespace: e2eEnv().namespace, labelSelector: `svc.io/warm-pool=${pool}` };
  const names = (kind: string, l: { items: { metadata?: { name?: string } }[] }) =>
    l.items.map((o) => `${kind}/${o.metadata!.name!}`);
  const [pods, claims, secrets] = await Promise.all([
    core.listNamespacedPod(q),
    core.listNamespacedPersistentVolumeClaim(q),
    core.listNamespacedSecret(q),
  ]);
  const policy = await kubectl([
    'get',
    'networkpolicy',
    '-n',
    e2eEnv().namespace,
    '--ignore-not-found',
    '-o',
    'name',
    `warmpool-${pool}`,
    `warmpool.${pool}.sandboxd`,
  ]);
  return [
    ...names('Pod', pods),
    ...names('PersistentVolumeClaim', claims),
    ...names('Secret', secrets),
    ...policy.split('\n').filter(Boolean),
  ].sort();
}

/** Waits until the pool reports one ready member, `Full`, and its Pod is Ready; resolves with that Pod. */
async function full(): Promise<V1Pod> {
  await expect
    .poll(
      async () => {
        const s = await poolStatus();
        const ready = s.conditions?.find((c) => c.type === 'Ready');
        const pods = await members();
        const podsReady = pods.filter((p) =>
          p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        ).length;
        return `${s.readyReplicas}/${s.replicas} ${ready?.reason} ${pods.length} ${podsReady}`;
      },
      { timeout: 240_000, interval: 1_000 },
    )
    .toBe('1/1 Full 1 1');
  return (await members())[0]!;
}

/**
 * An HTTP GET of sandboxd's `/runs` on the Pod's own loopback, from inside the sandbox (an exec
 * through the API), with `token` as its bearer: the status line's code.
 */
async function sandboxdStatus(sandbox: string, token: string): Promise<string> {
  const r = await alice.execSandbox(sandbox, {
    command: [
      'bash',
      '-c',
      'exec 3<>/dev/tcp/127.0.0.1/9000 && printf "GET /runs HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: Bearer %s\\r\\nConnection: close\\r\\n\\r\\n" "$0" >&3 && head -n 1 <&3',
      token,
    ],
  });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.trim().split(' ')[1]!;
}

/** The token in a member's or sandbox's token Secret (read as a check). */
async function tokenIn(secret: string): Promise<string> {
  const s = await kube().core.readNamespacedSecret({ name: secret, namespace: e2eEnv().namespace });
  const [value] = Object.values(s.data ?? {});
  return Buffer.from(value!, 'base64').toString();
}

beforeAll(async () => {
  const { custom } = kube();
  // The default template's shape, under a name of the test's own.
  await custom.createClusterCustomObject({
    ...GROUP,
    plural: 'clustersandboxtemplates',
    body: {
      apiVersion: 'svc.io/v1alpha1',
      kind: 'ClusterSandboxTemplate',
      metadata: { name: template },
      spec: {
        image: 'docker.io/library/debian:bookworm',
        command: ['sleep', 'infinity'],
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '1Gi' } },
        storage: { size: '1Gi' },
        timeout: '0',
        idleTimeout: '30m',
        network: { egress: 'internet' },
      },
    },
  });
  await custom.createNamespacedCustomObject({
    ...GROUP,
    plural: 'sandboxwarmpools',
    namespace: e2eEnv().namespace,
    body: {
      apiVersion: 'svc.io/v1alpha1',
      kind: 'SandboxWarmPool',
      metadata: { name: pool },
      spec: { templateRef: { name: template }, mode: 'code', replicas: 1 },
    },
  });
}, 60_000);

afterAll(async () => {
  for (const s of [claimer, cold]) {
    await alice.deleteSandbox(s).catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
  }
  const { custom } = kube();
  await custom
    .deleteNamespacedCustomObject({
      ...GROUP,
      plural: 'sandboxwarmpools',
      namespace: e2eEnv().namespace,
      name: pool,
    })
    .catch(() => undefined);
  // The pool's members go with it (its finalizer), then the template can go.
  await waitUntil('the pool’s members gone', members, (m) => m.length === 0, 120_000);
  await custom
    .deleteClusterCustomObject({ ...GROUP, plural: 'clustersandboxtemplates', name: template })
    .catch(() => undefined);
}, 300_000);

describe('a warm pool on a real cluster', () => {
  let member: V1Pod;
  let memberToken = '';
  let claimMs = 0;

  it('fills: one member, Ready (sandboxd answering its readiness probe), its claim bound', async () => {
    member = await full();
    expect(member.status?.phase).toBe('Running');
    expect(member.status?.containerStatuses?.find((c) => c.name === 'sandbox')?.ready).toBe(true);
    expect(member.spec?.nodeName).toMatch(/^n\d$/);
    const claim = await kube().core.readNamespacedPersistentVolumeClaim({
      name: `${member.metadata!.name!}-workspace`,
      namespace: e2eEnv().namespace,
    });
    expect(claim.status?.phase).toBe('Bound');
    const secrets = await kube().core.listNamespacedSecret({
      namespace: e2eEnv().namespace,
      labelSelector: `svc.io/warm-pool=${pool}`,
    });
    expect(secrets.items).toHaveLength(1);
    memberToken = await tokenIn(secrets.items[0]!.metadata!.name!);
    expect(memberToken.length).toBeGreaterThan(16);
  });

  it('a matching create adopts the member: the same Pod (uid), Running in seconds, exec works', async () => {
    const started = Date.now();
    await alice.createSandbox({ name: claimer, mode: 'code', templateRef: { name: template } });
    await alice.waitForPhase(claimer, 'Running', { timeoutMs: 120_000, intervalMs: 100 });
    claimMs = Date.now() - started;
    const sandbox = await alice.getSandbox(claimer);
    expect(sandbox.status?.podName).toBe(member.metadata!.name!);
    const pod = await kube().core.readNamespacedPod({
      name: sandbox.status.podName!,
      namespace: e2eEnv().namespace,
    });
    expect(pod.metadata?.uid).toBe(member.metadata!.uid!);
    expect(pod.metadata?.labels?.['svc.io/sandbox']).toBe(claimer);
    expect(pod.metadata?.labels?.['svc.io/warm-pool']).toBeUndefined();
    // Still selected by the pool's sandboxd policy, as before the claim: the API is let in
    // all through the enforcer's move of the Pod from the pool's policy to the sandbox's.
    expect(pod.metadata?.labels?.['svc.io/warm-member-of']).toBe(pool);
    expect(await poolObjects()).toContain(`networkpolicy.networking.k8s.io/warmpool.${pool}.sandboxd`);
    expect(pod.metadata?.annotations?.['svc.io/warm-claimed-from']).toBe(pool);
    expect(pod.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Sandbox', name: claimer, controller: true }),
    ]);
    const r = await alice.execSandbox(claimer, { command: ['echo', 'adopted'] });
    expect(r).toMatchObject({ exitCode: 0, stdout: 'adopted\n', stderr: '' });
    console.log(`warm claim: create → Running in ${claimMs} ms`);
    expect(claimMs).toBeLessThan(30_000);
  });

  it('the adopted sandboxd was re-tokened: the member’s token is refused (401), the sandbox’s taken', async () => {
    // The member's Secret moved to the sandbox and holds the sandbox's token now.
    await expect
      .poll(async () => (await sandboxObjects(claimer)).filter((o) => o.startsWith('Secret/')).length, {
        timeout: 30_000,
      })
      .toBe(1);
    const secret = (await sandboxObjects(claimer))
      .find((o) => o.startsWith('Secret/'))!
      .slice('Secret/'.length);
    const token = await tokenIn(secret);
    expect(token).not.toBe(memberToken);
    expect(await sandboxdStatus(claimer, memberToken)).toBe('401');
    expect(await sandboxdStatus(claimer, token)).toBe('200');
  });

  it('the pool refills with a new member; a create that does not match starts cold (timed)', async () => {
    const fresh = await full();
    expect(fresh.metadata?.uid).not.toBe(member.metadata!.uid!);
    // The control: with the pool's one member kept for the next claim, a create that does not
    // match (its own env) starts cold.
    const started = Date.now();
    await alice.createSandbox({
      name: cold,
      mode: 'code',
      templateRef: { name: template },
      env: [{ name: 'E2E_COLD', value: '1' }],
    });
    await alice.waitForPhase(cold, 'Running', { timeoutMs: 240_000, intervalMs: 100 });
    const coldMs = Date.now() - started;
    console.log(`cold create → Running in ${coldMs} ms (warm claim ${claimMs} ms)`);
    const coldPod = (await alice.getSandbox(cold)).status.podName!;
    expect(coldPod).toBe(cold);
    expect((await members()).map((p) => p.metadata!.uid)).toEqual([fresh.metadata!.uid]);
  });

  it('delete of the adopted sandbox leaves nothing of it: Pod, PVC, Secret, policy', async () => {
    const before = await sandboxObjects(claimer);
    for (const kind of ['Pod', 'PersistentVolumeClaim', 'Secret', 'NetworkPolicy']) {
      expect(
        before.some((o) => o.startsWith(`${kind}/`)),
        `${kind} in ${before.join(', ')}`,
      ).toBe(true);
    }
    await Promise.all([alice.deleteSandbox(claimer), alice.deleteSandbox(cold)]);
    await expect
      .poll(async () => [...(await sandboxObjects(claimer)), ...(await sandboxObjects(cold))], {
        timeout: 240_000,
        interval: 1_000,
      })
      .toEqual([]);
  });

  it('delete of the pool leaves no member: Pod, PVC, Secret, nor the pool’s policy', async () => {
    await kube().custom.deleteNamespacedCustomObject({
      ...GROUP,
      plural: 'sandboxwarmpools',
      namespace: e2eEnv().namespace,
      name: pool,
    });
    await expect.poll(() => poolObjects(), { timeout: 240_000, interval: 1_000 }).toEqual([]);
  });
});
