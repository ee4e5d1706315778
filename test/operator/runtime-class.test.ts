// Runtime classes on the real control plane with devnode (which runs every Pod alike, so
// only the Pod spec is asserted): a template's runtimeClassName reaches the Pod, the
// policy's defaultRuntimeClass applies to a template without one, and a warm pool's
// members never serve a sandbox of another runtime class.
import { randomBytes } from 'node:crypto';
import type { V1Pod } from '@kubernetes/client-node';
import { NodeV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GROUP, Policy, VERSION, WarmPool, type SandboxWarmPool } from '../../core/index.ts';
import { PolicyStore } from '../../kube/index.ts';
import { startOperator, type RunningOperator } from '../../operator/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  createSandbox,
  testOperatorSettings,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  waitForSandboxPhase,
} from '../support/index.ts';

const ns = useNamespace('rtc');
useDevnode(ns);
const plain = useClusterTemplate('rtc-plain', ns, {});
const gvisor = useClusterTemplate('rtc-gvisor', ns, { runtimeClassName: 'gvisor' });
const userns = useClusterTemplate('rtc-userns', ns, { hostUsers: false });
// A class (and template) name of this file's own, never created as a RuntimeClass.
const missingClass = `rtc-missing-${randomBytes(3).toString('hex')}`;
const pools = { group: GROUP, version: VERSION, plural: 'sandboxwarmpools' };
let operator: RunningOperator;
let store: PolicyStore<Policy>;

beforeAll(async () => {
  // The apiserver's RuntimeClass admission refuses a Pod naming a class that does not exist.
  // Shared by name with any other file that needs it; never deleted, it costs nothing.
  await ns.kc
    .makeApiClient(NodeV1Api)
    .createRuntimeClass({ body: { metadata: { name: 'gvisor' }, handler: 'runsc' } })
    .catch((err: { code?: number }) => {
      if (err.code !== 409) throw err;
    });
  store = new PolicyStore(ns.kc, ns.name, (raw) => Policy.parse(raw));
  operator = await startOperator({
    kc: ns.kc,
    logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }),
    settings: testOperatorSettings,
    namespace: ns.name,
    leaseNamespace: ns.name,
    identity: 'runtime-class-test',
  });
}, 60_000);
afterAll(async () => {
  await watcher?.stop();
  await operator?.stop();
}, 60_000);

const pod = (name: string) => ns.core.readNamespacedPod({ name, namespace: ns.name });

async function poolMembers(pool: string): Promise<V1Pod[]> {
  const pods = await ns.core.listNamespacedPod({
    namespace: ns.name,
    labelSelector: `${WarmPool.poolLabel}=${pool}`,
  });
  return pods.items.filter((p) => !p.metadata?.deletionTimestamp);
}

describe('runtime classes', () => {
  test("a template's runtimeClassName is the Pod's", async () => {
    await createSandbox(ns, 'from-gvisor', { templateRef: { name: gvisor } });
    const sandbox = await waitForSandboxPhase(ns, 'from-gvisor', 'Running');
    expect((await pod(sandbox.status!.podName!)).spec?.runtimeClassName).toBe('gvisor');
    // A template without one gives a Pod without one: the node's default runtime.
    await createSandbox(ns, 'from-plain', { templateRef: { name: plain } });
    await waitForSandboxPhase(ns, 'from-plain', 'Running');
    expect((await pod('from-plain')).spec?.runtimeClassName).toBeUndefined();
  }, 120_000);

  test("a RuntimeClass that does not exist: Error with the apiserver's reason, not a silent wait", async () => {
    await ns.custom.createClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'clustersandboxtemplates',
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'ClusterSandboxTemplate',
        metadata: { name: missingClass },
        spec: { image: 'debian:bookworm', storage: { size: '1Gi' }, runtimeClassName: missingClass },
      },
    });
    try {
      await createSandbox(ns, 'no-class', { templateRef: { name: missingClass } });
      const sandbox = await waitForSandboxPhase(ns, 'no-class', 'Error');
      expect(sandbox.status?.message).toMatch(
        new RegExp(`^the cluster refused the sandbox Pod: .*RuntimeClass "${missingClass}" not found`),
      );
      expect(sandbox.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
        status: 'False',
        reason: 'PodFailing',
      });
    } finally {
      await ns.custom
        .deleteClusterCustomObject({
          group: GROUP,
          version: VERSION,
          plural: 'clustersandboxtemplates',
          name: missingClass,
        })
        .catch(() => undefined);
    }
  }, 120_000);

  test("a template's hostUsers: false is the Pod's (devnode runs it like any other)", async () => {
    // Admission refuses it where node.userNamespaces is off; the operator only passes it on.
    await createSandbox(ns, 'userns', { templateRef: { name: userns } });
    await waitForSandboxPhase(ns, 'userns', 'Running');
    expect((await pod('userns')).spec?.hostUsers).toBe(false);
    expect((await pod('from-plain')).spec?.hostUsers).toBeUndefined();
  }, 120_000);

  test("a warm pool's members never serve a sandbox whose runtime class differs", async () => {
    await ns.custom.createNamespacedCustomObject({
      ...pools,
      namespace: ns.name,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'SandboxWarmPool',
        metadata: { name: 'plain' },
        spec: { templateRef: { name: plain }, mode: 'code', replicas: 1 },
      },
    });
    let members: V1Pod[] = [];
    await eventually(
      async () => {
        const pool = (await ns.custom.getNamespacedCustomObject({
          ...pools,
          namespace: ns.name,
          name: 'plain',
        })) as SandboxWarmPool;
        members = await poolMembers('plain');
        return pool.status?.readyReplicas === 1 && members.length === 1;
      },
      { timeoutMs: 90_000, describe: () => 'the pool never had 1 ready member' },
    );
    const member = members[0]!.metadata!.name!;
    expect(members[0]!.spec?.runtimeClassName).toBeUndefined();

    // Same template, mode and image as the pool, but its own runtime class: a cold start.
    await createSandbox(ns, 'own-class', { templateRef: { name: plain }, runtimeClassName: 'gvisor' });
    const sandbox = await waitForSandboxPhase(ns, 'own-class', 'Running');
    expect(sandbox.metadata.annotations?.[WarmPool.memberAnnotation]).toBeUndefined();
    expect(sandbox.status?.podName).toBe('own-class');
    expect((await pod('own-class')).spec?.runtimeClassName).toBe('gvisor');
    expect((await poolMembers('plain')).map((p) => p.metadata?.name)).toEqual([member]);

    // Under a policy whose defaultRuntimeClass is gvisor, a sandbox of the pool's template
    // runs under gvisor; the member made before the policy (runc) does not serve it.
    await store.put({ defaultRuntimeClass: 'gvisor' }, ns.name);
    await eventually(
      async () => (await store.forNamespace(ns.name)).namespace?.defaultRuntimeClass === 'gvisor',
      {
        timeoutMs: 10_000,
        describe: () => 'the policy was never stored',
      },
    );
    // The operator's template step reads its watched copy of the policy, which sees a change
    // a moment after the write: wait until a watch like it has.
    await eventually(operatorSees, {
      timeoutMs: 10_000,
      describe: () => 'a policy watch never saw the policy',
    });
    await createSandbox(ns, 'by-default', { templateRef: { name: plain } });
    const defaulted = await waitForSandboxPhase(ns, 'by-default', 'Running');
    expect((await pod(defaulted.status!.podName!)).spec?.runtimeClassName).toBe('gvisor');
    expect(defaulted.metadata.annotations?.[WarmPool.memberAnnotation]).not.toBe(member);
  }, 240_000);
});

/** Whether a watching store (as the operator's is) holds the namespace's policy. */
let watcher: PolicyStore<Policy> | undefined;
async function operatorSees(): Promise<boolean> {
  if (!watcher) {
    watcher = new PolicyStore(ns.kc, ns.name, (raw) => Policy.parse(raw));
    await watcher.start(pino({ level: 'silent' }));
  }
  return watcher.cached(ns.name).namespace?.defaultRuntimeClass === 'gvisor';
}
