// Owned means owned (issue 32): the operator takes, changes and deletes only objects whose
// controller reference is the Sandbox's uid. An object of the name a sandbox would use that
// is someone else's is a NameConflict on the Sandbox, never adopted, never deleted; and a
// sandbox named after another user's warm-pool member reaches neither her Pod nor her
// workspace, through the operator or the API.
import type { V1Pod } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GROUP, VERSION, WarmPool, type Sandbox, type SandboxWarmPool } from '../../core/index.ts';
import { SandboxdUnavailable } from '../../kube/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  createSandbox,
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  waitForSandboxPhase,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('own');
useDevnode(ns);
const template = useClusterTemplate('own', ns, {});
// The pool's template is its own, so the conflicting sandboxes above never claim a member.
const warmTemplate = useClusterTemplate('ownwarm', ns, {});
useOperator(ns, {
  identity: 'ownership-test',
  logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }),
});
const sandboxes = { group: GROUP, version: VERSION, plural: 'sandboxes' };
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi(ns);
}, 60_000);
afterAll(async () => api?.close(), 30_000);

const getSandbox = async (name: string) =>
  (await ns.custom.getNamespacedCustomObject({ ...sandboxes, namespace: ns.name, name })) as Sandbox;

/** Waits for the Sandbox's `Ready` to be False with reason NameConflict; resolves with its message. */
async function nameConflict(name: string): Promise<string> {
  let s: Sandbox | undefined;
  await eventually(
    async () => {
      s = await getSandbox(name);
      return s.status?.conditions?.find((c) => c.type === 'Ready')?.reason === 'NameConflict';
    },
    { timeoutMs: 30_000, describe: () => `${name} never NameConflict: ${JSON.stringify(s?.status)}` },
  );
  const ready = s!.status!.conditions!.find((c) => c.type === 'Ready')!;
  expect(ready.status).toBe('False');
  return ready.message ?? '';
}

/** The Warning Events of reason NameConflict on the Sandbox `name`. */
async function conflictEvents(name: string): Promise<string[]> {
  const events = await ns.core.listNamespacedEvent({ namespace: ns.name });
  return events.items
    .filter((e) => e.involvedObject.name === name && e.reason === 'NameConflict' && e.type === 'Warning')
    .map((e) => e.message ?? '');
}

/** Deletes the Sandbox and waits until it is gone (its finalization done). */
async function deleteAndWait(name: string): Promise<void> {
  await ns.custom.deleteNamespacedCustomObject({ ...sandboxes, namespace: ns.name, name });
  await eventually(
    () =>
      ns.custom.getNamespacedCustomObject({ ...sandboxes, namespace: ns.name, name }).then(
        () => false,
        (err: unknown) => (err as { code?: number }).code === 404,
      ),
    { timeoutMs: 30_000, describe: () => `${name} never went` },
  );
}

/** Pods of the namespace whose controller reference is the Sandbox `uid`. */
async function podsOwnedBy(uid: string): Promise<V1Pod[]> {
  const pods = await ns.core.listNamespacedPod({ namespace: ns.name });
  return pods.items.filter((p) => p.metadata?.ownerReferences?.some((r) => r.controller && r.uid === uid));
}

describe('an object of the expected name that is not the sandbox own', () => {
  test('a PVC data-workspace: NameConflict on a kubectl Sandbox data, and the PVC survives its deletion', async () => {
    const pvc = await ns.core.createNamespacedPersistentVolumeClaim({
      namespace: ns.name,
      body: {
        metadata: { name: 'data-workspace' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    // Through the API: refused before anything is written.
    const refused = await api.call('POST', '/sandboxes', {
      key: api.keys.bob,
      body: { name: 'data', templateRef: { name: template } },
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: 'name_conflict' });

    // Written as a raw object (kubectl): the operator says why it cannot start, and waits.
    await createSandbox(ns, 'data', { templateRef: { name: template }, createdBy: 'bob' });
    const message = await nameConflict('data');
    expect(message).toContain('PersistentVolumeClaim data-workspace');
    expect(await conflictEvents('data')).toEqual([
      expect.stringContaining('PersistentVolumeClaim data-workspace'),
    ]);
    const sandbox = await getSandbox('data');
    expect(sandbox.status?.phase).toBe('Error');
    // No Pod of its own mounts the foreign claim.
    expect(await podsOwnedBy(sandbox.metadata.uid!)).toEqual([]);
    const kept = await ns.core.readNamespacedPersistentVolumeClaim({
      name: 'data-workspace',
      namespace: ns.name,
    });
    expect(kept.metadata?.ownerReferences ?? []).toEqual([]);

    await deleteAndWait('data');
    const after = await ns.core.readNamespacedPersistentVolumeClaim({
      name: 'data-workspace',
      namespace: ns.name,
    });
    expect(after.metadata?.uid).toBe(pvc.metadata?.uid);
    expect(after.metadata?.deletionTimestamp).toBeUndefined();
  }, 90_000);

  test("a Secret victim-sandboxd made by someone else survives bob's sandbox victim and its deletion", async () => {
    const secret = await ns.core.createNamespacedSecret({
      namespace: ns.name,
      body: { metadata: { name: 'victim-sandboxd' }, stringData: { token: 'not-yours' } },
    });
    await createSandbox(ns, 'victim', { templateRef: { name: template }, createdBy: 'bob' });
    expect(await nameConflict('victim')).toContain('Secret victim-sandboxd');
    const sandbox = await getSandbox('victim');
    expect(await podsOwnedBy(sandbox.metadata.uid!)).toEqual([]);

    await deleteAndWait('victim');
    const after = await ns.core.readNamespacedSecret({ name: 'victim-sandboxd', namespace: ns.name });
    expect(after.metadata?.uid).toBe(secret.metadata?.uid);
    expect(after.metadata?.deletionTimestamp).toBeUndefined();
    expect(Buffer.from(after.data!.token!, 'base64').toString()).toBe('not-yours');
    expect(after.metadata?.ownerReferences ?? []).toEqual([]);
  }, 90_000);
});

describe('a port Service of the expected name that is not the sandbox own', () => {
  test("Service pf-svcx-8080 made by someone else: NameConflict, and it survives bob's sandbox", async () => {
    const service = await ns.core.createNamespacedService({
      namespace: ns.name,
      body: { metadata: { name: 'pf-svcx-8080' }, spec: { ports: [{ port: 8080 }] } },
    });
    await createSandbox(ns, 'svcx', {
      templateRef: { name: template },
      createdBy: 'bob',
      ports: [{ port: 8080 }],
    });
    expect(await nameConflict('svcx')).toContain('Service pf-svcx-8080');
    await deleteAndWait('svcx');
    const after = await ns.core.readNamespacedService({ name: 'pf-svcx-8080', namespace: ns.name });
    expect(after.metadata?.uid).toBe(service.metadata?.uid);
    expect(after.metadata?.ownerReferences ?? []).toEqual([]);
  }, 90_000);
});

describe("a sandbox named after another user's claimed warm-pool member", () => {
  test('reaches neither her Pod nor her workspace', async () => {
    await ns.custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'sandboxwarmpools',
      namespace: ns.name,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'SandboxWarmPool',
        metadata: { name: 'warm' },
        spec: { templateRef: { name: warmTemplate }, mode: 'code', replicas: 1 },
      },
    });
    let pool: SandboxWarmPool | undefined;
    await eventually(
      async () => {
        pool = (await ns.custom.getNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          plural: 'sandboxwarmpools',
          namespace: ns.name,
          name: 'warm',
        })) as SandboxWarmPool;
        return pool.status?.readyReplicas === 1;
      },
      { timeoutMs: 90_000, describe: () => `the pool never ready: ${JSON.stringify(pool?.status)}` },
    );

    // Alice's sandbox claims the member and keeps a secret in its workspace.
    const created = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: { name: 'alices', templateRef: { name: warmTemplate } },
    });
    expect(created.status).toBe(201);
    const alices = await waitForSandboxPhase(ns, 'alices', 'Running');
    const member = alices.status!.podName!;
    expect(member).not.toBe('alices');
    await eventually(
      async () => (await getSandbox('alices')).metadata.annotations?.[WarmPool.memberAnnotation] === member,
      { timeoutMs: 10_000, describe: () => `the member ${member} annotated on alices` },
    );
    const exec = (key: string, name: string, command: string) =>
      api.call('POST', `/sandboxes/${name}/exec`, { key, body: { command } });
    const wrote = await exec(
      api.keys.alice,
      'alices',
      'echo alice-secret > /workspace/secret && cat /workspace/secret',
    );
    expect(await wrote.json()).toMatchObject({ exitCode: 0, stdout: 'alice-secret\n' });
    const herPod = await ns.core.readNamespacedPod({ name: member, namespace: ns.name });
    const herClaim = await ns.core.readNamespacedPersistentVolumeClaim({
      name: `${member}-workspace`,
      namespace: ns.name,
    });
    const herSecret = await ns.core.readNamespacedSecret({ name: `${member}-sandboxd`, namespace: ns.name });

    // Bob through the API: the name is taken.
    const refused = await api.call('POST', '/sandboxes', {
      key: api.keys.bob,
      body: { name: member, templateRef: { name: template } },
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: 'name_conflict' });

    // Bob with kubectl: a NameConflict, and no Pod of his.
    await createSandbox(ns, member, { templateRef: { name: template }, createdBy: 'bob' });
    expect(await nameConflict(member)).toMatch(/(Pod|Secret|PersistentVolumeClaim) /);
    const bobs = await getSandbox(member);
    expect(await podsOwnedBy(bobs.metadata.uid!)).toEqual([]);

    // His exec through the API never reaches her Pod.
    const his = await exec(api.keys.bob, member, 'cat /workspace/secret');
    expect(his.status).toBe(409);
    const body = (await his.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ error: 'not_running' });
    expect(JSON.stringify(body)).not.toContain('alice-secret');
    // Nor does the locator, whatever his status says: her Pod is not his Sandbox's.
    await expect(api.deps.sandboxd.client(ns.name, member, bobs.metadata.uid)).rejects.toThrow(
      SandboxdUnavailable,
    );
    await expect(api.deps.sandboxd.client(ns.name, member)).rejects.toThrow(SandboxdUnavailable);
    // Nor when the Pod to read first is named (as the API names its status's podName).
    await expect(
      api.deps.sandboxd.client(ns.name, member, bobs.metadata.uid, { podName: member }),
    ).rejects.toThrow(SandboxdUnavailable);
    // Hers, found by the name her status gives (her member's), is hers.
    const hers = await api.deps.sandboxd.client(ns.name, 'alices', alices.metadata.uid, { podName: member });
    expect(await hers.health()).toBe(true);

    // Nor does a kubectl Sandbox that names her member in its own annotations (the name its
    // Pod, claim and Secret would then derive from): nothing of hers is taken.
    await ns.custom.createNamespacedCustomObject({
      ...sandboxes,
      namespace: ns.name,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'Sandbox',
        metadata: { name: 'spoof', annotations: { [WarmPool.memberAnnotation]: member } },
        spec: { templateRef: { name: template }, createdBy: 'bob' },
      },
    });
    expect(await nameConflict('spoof')).toMatch(/(Pod|Secret|PersistentVolumeClaim) /);
    const spoof = await getSandbox('spoof');
    expect(await podsOwnedBy(spoof.metadata.uid!)).toEqual([]);
    expect((await exec(api.keys.bob, 'spoof', 'cat /workspace/secret')).status).toBe(409);
    await expect(api.deps.sandboxd.client(ns.name, 'spoof', spoof.metadata.uid)).rejects.toThrow(
      SandboxdUnavailable,
    );
    await deleteAndWait('spoof');

    // Her Pod, claim and token Secret are untouched, before and after his sandbox goes.
    const untouched = async () => {
      const pod = await ns.core.readNamespacedPod({ name: member, namespace: ns.name });
      expect(pod.metadata?.uid).toBe(herPod.metadata?.uid);
      expect(pod.metadata?.deletionTimestamp).toBeUndefined();
      const claim = await ns.core.readNamespacedPersistentVolumeClaim({
        name: `${member}-workspace`,
        namespace: ns.name,
      });
      expect(claim.metadata?.uid).toBe(herClaim.metadata?.uid);
      expect(claim.metadata?.deletionTimestamp).toBeUndefined();
      expect(claim.metadata?.ownerReferences?.map((r) => r.uid)).toEqual([alices.metadata.uid]);
      const secret = await ns.core.readNamespacedSecret({ name: `${member}-sandboxd`, namespace: ns.name });
      expect(secret.metadata?.uid).toBe(herSecret.metadata?.uid);
      expect(secret.data).toEqual(herSecret.data);
      const read = await exec(api.keys.alice, 'alices', 'cat /workspace/secret');
      expect(await read.json()).toMatchObject({ exitCode: 0, stdout: 'alice-secret\n' });
    };
    await untouched();
    await deleteAndWait(member);
    await untouched();
    expect((await getSandbox('alices')).status?.phase).toBe('Running');
  }, 240_000);
});
