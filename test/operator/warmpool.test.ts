// Warm pools on the real control plane with devnode: members kept ready, claimed by Sandboxes
// created through the API and as raw objects, refilled, scaled with kubectl, recycled when
// their template changes, and deleted with their pool while claimed sandboxes stay.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  NetworkingV1Api,
  Watch,
  type V1PersistentVolumeClaim,
  type V1Pod,
  type V1Secret,
} from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import {
  Annotations,
  GROUP,
  Labels,
  VERSION,
  WarmPool,
  sandboxdToken,
  type Sandbox,
  type SandboxWarmPool,
} from '../../core/index.ts';
import { SandboxdClient, SandboxdKeySecret, mergePatch } from '../../kube/index.ts';
import { startOperator, type RunningOperator } from '../../operator/index.ts';
import { eventually, kubeAssets } from '../../stack/index.ts';
import {
  createSandbox,
  shIn,
  startTestApi,
  testOperatorSettings,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  waitForSandboxPhase,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('wp');
useDevnode(ns);
const template = useClusterTemplate('wp', ns, {});
// The parallel test's pool has a template of its own, so no other pool's members are claimed.
const burstTemplate = useClusterTemplate('wpburst', ns, {});
// Members whose claims no provisioner takes: devnode never binds their Pods, and the test
// writes the scheduler's refusal on them.
const stuckTemplate = useClusterTemplate('wpstuck', ns, {
  storage: { size: '1Gi', storageClassName: 'wp-nowhere' },
});
const logger = pino({ level: process.env.SVC_TEST_LOG ?? 'silent' });
const pools = { group: GROUP, version: VERSION, plural: 'sandboxwarmpools' };
const sandboxes = { group: GROUP, version: VERSION, plural: 'sandboxes' };
let operator: RunningOperator;
let api: TestApi;
let kubectlPath = '';
let cacheDir = '';

/** The operator of this file's namespace (stopped and started again by the takeover tests). */
const startTestOperator = () =>
  startOperator({
    kc: ns.kc,
    logger,
    settings: testOperatorSettings,
    namespace: ns.name,
    leaseNamespace: ns.name,
    identity: 'warmpool-test',
  });

beforeAll(async () => {
  operator = await startTestOperator();
  api = await startTestApi(ns);
  kubectlPath = join(await kubeAssets(), 'kubectl');
  cacheDir = await mkdtemp(join(tmpdir(), 'svc-kubectl-cache-'));
}, 60_000);
afterAll(async () => {
  await api?.close();
  await operator?.stop();
  await rm(cacheDir, { recursive: true, force: true });
}, 60_000);

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(kubectlPath, [
    '--kubeconfig',
    inject('kubeconfigPath'),
    '--cache-dir',
    cacheDir,
    ...args,
  ]);
  return stdout;
}

async function createPool(name: string, templateName: string, replicas: number): Promise<void> {
  await ns.custom.createNamespacedCustomObject({
    ...pools,
    namespace: ns.name,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'SandboxWarmPool',
      metadata: { name },
      spec: { templateRef: { name: templateName }, mode: 'code', replicas },
    },
  });
}

const getPool = async (name: string) =>
  (await ns.custom.getNamespacedCustomObject({ ...pools, namespace: ns.name, name })) as SandboxWarmPool;
const getSandbox = async (name: string) =>
  (await ns.custom.getNamespacedCustomObject({ ...sandboxes, namespace: ns.name, name })) as Sandbox;

/** Unclaimed members of `pool`, from the apiserver. */
async function members(pool: string): Promise<V1Pod[]> {
  const pods = await ns.core.listNamespacedPod({
    namespace: ns.name,
    labelSelector: `${WarmPool.poolLabel}=${pool}`,
  });
  return pods.items.filter((p) => !p.metadata?.deletionTimestamp);
}

/** Waits until `pool` has `n` ready members and no others; resolves with their Pods. */
async function full(pool: string, n: number): Promise<V1Pod[]> {
  let last: SandboxWarmPool | undefined;
  let pods: V1Pod[] = [];
  await eventually(
    async () => {
      last = await getPool(pool);
      pods = await members(pool);
      return last.status?.readyReplicas === n && last.status.replicas === n && pods.length === n;
    },
    { timeoutMs: 90_000, describe: () => `${pool} never had ${n} ready: ${JSON.stringify(last?.status)}` },
  );
  return pods;
}

/** The Pods and claims that belong to sandbox `name` (by its label), none going away. */
async function ownedBy(
  name: string,
): Promise<{ pods: V1Pod[]; claims: V1PersistentVolumeClaim[]; secrets: V1Secret[] }> {
  const selector = { namespace: ns.name, labelSelector: `${Labels.sandbox}=${name}` };
  const pods = (await ns.core.listNamespacedPod(selector)).items.filter(
    (p) => !p.metadata?.deletionTimestamp,
  );
  const claims = (await ns.core.listNamespacedPersistentVolumeClaim(selector)).items;
  const secrets = (await ns.core.listNamespacedSecret(selector)).items;
  return { pods, claims, secrets };
}

/**
 * `ownedBy` once the sandbox's claim and token Secret are under its label: a claimed member's
 * move there (its bookkeeping) is written beside the `Running` status, so it may land just after.
 */
async function settledOwnedBy(name: string): ReturnType<typeof ownedBy> {
  let owned = await ownedBy(name);
  await eventually(
    async () => {
      owned = await ownedBy(name);
      return owned.claims.length > 0 && owned.secrets.length > 0;
    },
    {
      timeoutMs: 10_000,
      intervalMs: 20,
      describe: () => `${name}'s claim and Secret: ${JSON.stringify(owned)}`,
    },
  );
  return owned;
}

async function claimsMetric(pool: string, outcome: string): Promise<number> {
  const text = await operator.metrics.registry.metrics();
  const line = text
    .split('\n')
    .find((l) =>
      l.startsWith(`svc_warmpool_claims_total{namespace="${ns.name}",pool="${pool}",outcome="${outcome}"}`),
    );
  return line ? Number(line.split(' ').pop()) : 0;
}

/**
 * The claimed member's sandboxd refuses the pool's token for it and accepts the sandbox's;
 * resolves with a client holding the sandbox's token.
 */
async function expectTokenHandedOver(
  pod: V1Pod,
  pool: SandboxWarmPool,
  sandbox: Sandbox,
): Promise<SandboxdClient> {
  const key = await new SandboxdKeySecret({ kc: ns.kc, namespace: ns.name, ttlMs: 0 }).read();
  const address = pod.metadata!.annotations![Annotations.sandboxdAddress]!;
  const old = sandboxdToken(key, {
    namespace: ns.name,
    name: pod.metadata!.name!,
    uid: `warmpool-${pool.metadata.uid}`,
  });
  await expect(new SandboxdClient({ address, token: old }).load()).rejects.toThrow(/401/);
  const token = sandboxdToken(key, {
    namespace: ns.name,
    name: sandbox.metadata.name!,
    uid: sandbox.metadata.uid!,
  });
  const client = new SandboxdClient({ address, token });
  expect((await client.load()).items).toEqual([]);
  return client;
}

describe('a warm pool', () => {
  test('has a scale subresource and printer columns', async () => {
    await createPool('main', template, 2);
    await full('main', 2);
    const columns = await kubectl('get', 'sandboxwarmpools', '-n', ns.name);
    expect(columns.split('\n')[0]).toMatch(/^NAME\s+TEMPLATE\s+MODE\s+DESIRED\s+READY\s+AGE$/);
    expect(columns.split('\n')[1]).toMatch(new RegExp(`^main\\s+${template}\\s+code\\s+2\\s+2\\s+`));
    // GET /api/v1/templates shows the template's ready members.
    const listed = await api.call('GET', '/templates', { key: api.keys.alice });
    expect(listed.status).toBe(200);
    const { templates } = (await listed.json()) as { templates: { name: string; readyMembers: number }[] };
    expect(templates.find((t) => t.name === template)?.readyMembers).toBe(2);
    expect(templates.find((t) => t.name === burstTemplate)?.readyMembers).toBe(0);
  }, 120_000);

  test('a hit: the sandbox adopts a ready member, whose sandboxd takes the new token; the pool refills', async () => {
    const before = await full('main', 2);
    const names = before.map((p) => p.metadata!.name!);
    const pool = await getPool('main');
    const hits = await claimsMetric('main', 'hit');
    // Every phase the sandbox's status takes, from before it exists, and the etcd revision
    // (global across kinds) of the write that made it Running.
    const phases: string[] = [];
    let runningRevision = 0;
    const watch = await new Watch(ns.kc).watch(
      `/apis/${GROUP}/${VERSION}/namespaces/${ns.name}/sandboxes`,
      { fieldSelector: 'metadata.name=hit' },
      (_type: string, obj: Sandbox) => {
        const phase = obj.status?.phase;
        if (phase === 'Running' && !runningRevision) runningRevision = Number(obj.metadata.resourceVersion);
        if (phase && phases.at(-1) !== phase) phases.push(phase);
      },
      () => undefined,
    );

    const res = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: { name: 'hit', templateRef: { name: template } },
    });
    expect(res.status).toBe(201);
    const sandbox = await waitForSandboxPhase(ns, 'hit', 'Running');
    await eventually(() => Promise.resolve(phases.includes('Running')), {
      timeoutMs: 10_000,
      describe: () => `the watch saw ${JSON.stringify(phases)}`,
    });
    watch.abort();
    // Straight to Running: the claim's own pass says so (it does not wait for its caches to
    // show the adopted Pod and claim, which would cost a second pass and status write).
    expect(phases).toEqual(['Running']);
    expect(names).toContain(sandbox.status?.podName);
    const member = sandbox.status!.podName!;
    expect(await claimsMetric('main', 'hit')).toBe(hits + 1);
    // The member's name on the Sandbox is bookkeeping written after the status.
    await eventually(
      async () => (await getSandbox('hit')).metadata.annotations?.[WarmPool.memberAnnotation] === member,
      { timeoutMs: 10_000, describe: () => `the member ${member} annotated on the sandbox` },
    );

    // Exactly one Pod, one claim and one token Secret, the member's, now the sandbox's.
    const owned = await settledOwnedBy('hit');
    expect(owned.pods.map((p) => p.metadata?.name)).toEqual([member]);
    expect(owned.claims.map((c) => c.metadata?.name)).toEqual([`${member}-workspace`]);
    expect(owned.secrets.map((s) => s.metadata?.name)).toEqual([`${member}-sandboxd`]);
    expect(owned.pods[0]!.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid])).toEqual([
      ['Sandbox', 'hit', sandbox.metadata.uid],
    ]);
    expect(owned.pods[0]!.metadata?.labels?.[WarmPool.poolLabel]).toBeUndefined();

    // The claimed Pod keeps the label of the pool's sandboxd policy, which selected it before
    // the claim too: the API's way in to sandboxd is open under one policy all through the
    // relabel (an enforcer reprograms the Pod from the pool's policy to the sandbox's after
    // it). That policy allows exactly the sandbox's own first ingress rule, and no egress.
    expect(owned.pods[0]!.metadata?.labels?.[WarmPool.memberOfLabel]).toBe('main');
    const net = ns.kc.makeApiClient(NetworkingV1Api);
    const own = await net.readNamespacedNetworkPolicy({ name: 'sandbox-hit', namespace: ns.name });
    const sandboxd = await net.readNamespacedNetworkPolicy({
      name: 'warmpool.main.sandboxd',
      namespace: ns.name,
    });
    expect(sandboxd.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid])).toEqual([
      ['SandboxWarmPool', 'main', pool.metadata.uid],
    ]);
    expect(sandboxd.spec).toEqual({
      podSelector: { matchLabels: { [WarmPool.memberOfLabel]: 'main' } },
      policyTypes: ['Ingress'],
      ingress: [own.spec!.ingress![0]],
    });
    expect(own.spec!.ingress![0]!.ports).toEqual([{ protocol: 'TCP', port: 9000 }]);

    // sandboxd refuses the member's token and accepts the sandbox's, without a restart.
    const client = await expectTokenHandedOver(owned.pods[0]!, pool, sandbox);
    expect(owned.pods[0]!.status?.containerStatuses?.every((c) => c.restartCount === 0)).toBe(true);

    // The API's locator finds the adopted Pod by the sandbox's label and its new token.
    const viaApi = await api.deps.sandboxd.client(ns.name, 'hit');
    expect(await shIn(viaApi, 'echo adopted > /workspace/mark && cat /workspace/mark')).toBe('adopted\n');
    expect(await shIn(client, 'cat /workspace/mark')).toBe('adopted\n');

    // The pool is full again, with a new member in the claimed one's place, whose objects
    // (its token Secret first) were written only after the claim's Running: the refill does
    // not compete with the status write the sandbox's owner waits on.
    const after = await full('main', 2);
    expect(after.map((p) => p.metadata?.name)).not.toContain(member);
    const added = after.map((p) => p.metadata!.name!).filter((n) => !names.includes(n));
    expect(added).toHaveLength(1);
    const secret = await ns.core.readNamespacedSecret({ name: `${added[0]}-sandboxd`, namespace: ns.name });
    expect(Number(secret.metadata?.resourceVersion)).toBeGreaterThan(runningRevision);
  }, 180_000);

  test('a miss: a sandbox no member fits starts cold, as without a pool', async () => {
    await full('main', 2);
    const misses = await claimsMetric('main', 'miss');
    // Its own environment makes its Pod unlike the members'.
    await createSandbox(ns, 'cold', { templateRef: { name: template }, env: [{ name: 'OWN', value: '1' }] });
    const sandbox = await waitForSandboxPhase(ns, 'cold', 'Running');
    expect(sandbox.status?.podName).toBe('cold');
    expect(sandbox.metadata.annotations?.[WarmPool.memberAnnotation]).toBeUndefined();
    const owned = await ownedBy('cold');
    expect(owned.pods.map((p) => p.metadata?.name)).toEqual(['cold']);
    expect(owned.claims.map((c) => c.metadata?.name)).toEqual(['cold-workspace']);
    expect(await claimsMetric('main', 'miss')).toBe(misses + 1);
    expect(await members('main')).toHaveLength(2);
  }, 120_000);

  test('timeout starts at the claim, not when the pool made the member', async () => {
    const pods = await full('main', 2);
    const oldest = Math.min(...pods.map((p) => new Date(p.metadata!.creationTimestamp!).getTime()));
    // Members older than the sandbox's timeout: counted from their creation it would be over.
    await eventually(() => Promise.resolve(Date.now() - oldest > 7_000), {
      timeoutMs: 20_000,
      describe: () => 'members never got old',
    });
    await createSandbox(ns, 'short', { templateRef: { name: template }, timeout: '6s' });
    const running = await waitForSandboxPhase(ns, 'short', 'Running');
    // Claimed: its Pod is a member's (the member's annotation is bookkeeping after Running).
    expect(running.status?.podName).not.toBe('short');
    const stopped = await waitForSandboxPhase(ns, 'short', 'Stopped', 30_000);
    expect(stopped.status?.conditions?.find((c) => c.type === 'Expired')?.reason).toBe('TimeoutExceeded');
  }, 120_000);

  test.each([
    ['', false],
    [', its status written but not its annotation', true],
  ])(
    'a claim the leader committed but did not finish (it died) is finished by the next one%s',
    async (_, statusWritten) => {
      const name = statusWritten ? 'takeover-status' : 'takeover';
      const [member] = await full('main', 2);
      const memberName = member!.metadata!.name!;
      const pool = await getPool('main');
      await operator.stop();
      try {
        await createSandbox(ns, name, { templateRef: { name: template } });
        const created = await getSandbox(name);
        // The commit as the claim writes it (the Pod moves to the sandbox, stamped with its
        // pool), and nothing after it: no annotation on the Sandbox, no token handed over.
        await ns.core.patchNamespacedPod(
          {
            name: memberName,
            namespace: ns.name,
            body: {
              metadata: {
                resourceVersion: member!.metadata!.resourceVersion,
                labels: { [WarmPool.poolLabel]: null, [Labels.sandbox]: name },
                annotations: {
                  [WarmPool.claimedAtAnnotation]: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
                  [WarmPool.claimedFromAnnotation]: 'main',
                },
                ownerReferences: [
                  {
                    apiVersion: `${GROUP}/${VERSION}`,
                    kind: 'Sandbox',
                    name,
                    uid: created.metadata.uid!,
                    controller: true,
                    blockOwnerDeletion: true,
                  },
                ],
              },
            },
          },
          mergePatch,
        );
        // The status write of the same pass, which can land before the Sandbox's annotation.
        if (statusWritten)
          await ns.custom.patchNamespacedCustomObjectStatus(
            {
              ...sandboxes,
              namespace: ns.name,
              name,
              body: { status: { phase: 'Creating', podName: memberName } },
            },
            mergePatch,
          );
      } finally {
        operator = await startTestOperator();
      }
      const sandbox = await waitForSandboxPhase(ns, name, 'Running');
      expect(sandbox.status?.podName).toBe(memberName);
      expect(sandbox.metadata.annotations?.[WarmPool.memberAnnotation]).toBe(memberName);
      const owned = await ownedBy(name);
      expect(owned.pods.map((p) => p.metadata?.name)).toEqual([memberName]);
      expect(owned.claims.map((c) => c.metadata?.name)).toEqual([`${memberName}-workspace`]);
      // The new leader handed the sandbox's token to the member's sandboxd.
      await expectTokenHandedOver(owned.pods[0]!, pool, sandbox);
      await full('main', 2);
    },
    180_000,
  );

  test('kubectl scale sets the number of members', async () => {
    expect(await kubectl('scale', 'sandboxwarmpool/main', '--replicas=3', '-n', ns.name)).toMatch(/scaled/);
    expect((await getPool('main')).spec.replicas).toBe(3);
    await full('main', 3);
    await kubectl('scale', 'sandboxwarmpool/main', '--replicas=2', '-n', ns.name);
    await full('main', 2);
  }, 120_000);

  test('a template change recycles every member', async () => {
    const before = (await full('main', 2)).map((p) => p.metadata!.name!);
    await ns.custom.patchClusterCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: 'clustersandboxtemplates',
        name: template,
        body: { spec: { env: [{ name: 'RECYCLED', value: 'yes' }] } },
      },
      mergePatch,
    );
    let now: string[] = [];
    await eventually(
      async () => {
        now = (await full('main', 2)).map((p) => p.metadata!.name!);
        return now.every((n) => !before.includes(n));
      },
      {
        timeoutMs: 90_000,
        describe: () => `members still ${JSON.stringify(now)} (before: ${JSON.stringify(before)})`,
      },
    );
    const pod = await ns.core.readNamespacedPod({ name: now[0]!, namespace: ns.name });
    expect(pod.spec?.containers[0]?.env?.find((e) => e.name === 'RECYCLED')?.value).toBe('yes');
  }, 180_000);

  test('10 parallel creates against a pool of 3: 3 hits, 7 cold, no member shared', async () => {
    await createPool('burst', burstTemplate, 3);
    const names = (await full('burst', 3)).map((p) => p.metadata!.name!);
    const created = Array.from({ length: 10 }, (_, i) => `burst-${i}`);
    await Promise.all(created.map((n) => createSandbox(ns, n, { templateRef: { name: burstTemplate } })));
    const running = await Promise.all(created.map((n) => waitForSandboxPhase(ns, n, 'Running', 150_000)));
    const adopted = running.filter((s) => s.status?.podName !== s.metadata.name);
    expect(adopted).toHaveLength(3);
    expect(new Set(adopted.map((s) => s.status?.podName))).toEqual(new Set(names));
    for (const s of running) {
      const owned = await settledOwnedBy(s.metadata.name!);
      expect(owned.pods.map((p) => p.metadata?.name)).toEqual([s.status?.podName]);
      expect(owned.claims).toHaveLength(1);
      expect(owned.secrets).toHaveLength(1);
    }
    expect(await claimsMetric('burst', 'hit')).toBe(3);
    expect(await claimsMetric('burst', 'miss')).toBe(7);
    await Promise.all(
      created.map((n) =>
        ns.custom.deleteNamespacedCustomObject({ ...sandboxes, namespace: ns.name, name: n }),
      ),
    );
  }, 240_000);

  test('members count against no quota until claimed', async () => {
    await full('main', 2);
    const existing = (
      (await ns.custom.listNamespacedCustomObject({ ...sandboxes, namespace: ns.name })) as {
        items: Sandbox[];
      }
    ).items.filter((s) => !s.metadata.deletionTimestamp).length;
    // Room for exactly one more sandbox, with two members standing by.
    const put = await api.call('PUT', `/governance/policies/${ns.name}`, {
      key: api.keys.admin,
      body: { maxSandboxesTotal: existing + 1 },
    });
    expect(put.status).toBe(200);
    try {
      const first = await api.call('POST', '/sandboxes', {
        key: api.keys.alice,
        body: { name: 'quota-a', templateRef: { name: template } },
      });
      expect(first.status).toBe(201);
      const claimed = await waitForSandboxPhase(ns, 'quota-a', 'Running');
      // Claimed: its Pod is a member's (the member's annotation is bookkeeping after Running).
      expect(claimed.status?.podName).not.toBe('quota-a');
      const second = await api.call('POST', '/sandboxes', {
        key: api.keys.alice,
        body: { name: 'quota-b', templateRef: { name: template } },
      });
      expect(second.status).toBe(403);
      expect(
        ((await second.json()) as { violations: { code: string }[] }).violations.map((v) => v.code),
      ).toEqual(['namespace_quota_exceeded']);
    } finally {
      await api.call('DELETE', `/governance/policies/${ns.name}`, { key: api.keys.admin });
    }
  }, 120_000);

  test('a pool whose members the scheduler refuses says why in its Ready condition', async () => {
    await createPool('stuck', stuckTemplate, 2);
    let pods: V1Pod[] = [];
    await eventually(async () => (pods = await members('stuck')).length === 2, {
      timeoutMs: 30_000,
      describe: () => `stuck's 2 members (${pods.length})`,
    });
    const refusal = '0/1 nodes are available: 1 Insufficient cpu.';
    // What kube-scheduler writes on a Pod it cannot place.
    await ns.core.patchNamespacedPodStatus(
      {
        namespace: ns.name,
        name: pods[0]!.metadata!.name!,
        body: {
          status: {
            conditions: [
              { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: refusal },
            ],
          },
        },
      },
      mergePatch,
    );
    let last: SandboxWarmPool | undefined;
    await eventually(
      async () => {
        last = await getPool('stuck');
        return last.status?.conditions?.some((c) => c.reason === 'Unschedulable') ?? false;
      },
      { timeoutMs: 30_000, describe: () => `stuck's status: ${JSON.stringify(last?.status)}` },
    );
    expect(last!.status!.readyReplicas).toBe(0);
    expect(last!.status!.conditions!.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message: `0 of 2 members ready; 1 member(s) cannot be scheduled (${pods[0]!.metadata!.name}: ${refusal})`,
    });
    const columns = await kubectl('describe', 'sandboxwarmpool', 'stuck', '-n', ns.name);
    expect(columns).toContain('Insufficient cpu');
    await ns.custom.deleteNamespacedCustomObject({ ...pools, namespace: ns.name, name: 'stuck' });
    await eventually(async () => (await members('stuck')).length === 0, {
      timeoutMs: 30_000,
      describe: () => "stuck's members gone",
    });
  });

  test('deleting the pool deletes its unclaimed members and leaves claimed sandboxes alone', async () => {
    const unclaimed = (await full('main', 2)).map((p) => p.metadata!.name!);
    const hit = await getSandbox('hit');
    await ns.custom.deleteNamespacedCustomObject({ ...pools, namespace: ns.name, name: 'main' });
    await eventually(
      async () => {
        const left = await ns.core.listNamespacedPod({ namespace: ns.name });
        const claims = await ns.core.listNamespacedPersistentVolumeClaim({ namespace: ns.name });
        return (
          !left.items.some((p) => unclaimed.includes(p.metadata!.name!)) &&
          !claims.items.some((c) => unclaimed.some((u) => c.metadata?.name === `${u}-workspace`))
        );
      },
      { timeoutMs: 60_000, describe: () => `members ${JSON.stringify(unclaimed)} still there` },
    );
    await eventually(
      async () =>
        !(await ns.custom
          .getNamespacedCustomObject({ ...pools, namespace: ns.name, name: 'main' })
          .then(() => true)
          .catch(() => false)),
      { timeoutMs: 30_000, describe: () => 'the pool was never deleted' },
    );
    // Its NetworkPolicies go with it; the claimed sandbox keeps its own.
    const policies = await ns.kc
      .makeApiClient(NetworkingV1Api)
      .listNamespacedNetworkPolicy({ namespace: ns.name });
    const names = policies.items.map((p) => p.metadata!.name!);
    expect(names).not.toContain('warmpool-main');
    expect(names).not.toContain('warmpool.main.sandboxd');
    expect(names).toContain('sandbox-hit');
    const still = await getSandbox('hit');
    expect(still.status?.phase).toBe('Running');
    expect(still.metadata.uid).toBe(hit.metadata.uid);
    const owned = await ownedBy('hit');
    expect(owned.pods.map((p) => p.metadata?.name)).toEqual([hit.status?.podName]);
    expect(owned.claims).toHaveLength(1);
  }, 120_000);
});
