// The operator as a real process, killed outright (SIGKILL) in the middle of creating a
// Sandbox's objects (one, then twenty at once): another replica takes the Lease over and
// finishes them without duplicating anything the first one created.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { NetworkingV1Api, Watch, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { GROUP, VERSION, type Sandbox } from '../../core/index.ts';
import { eventually, type Managed, startManaged } from '../../stack/index.ts';
import { useClusterTemplate, useDevnode, useNamespace, createSandbox } from '../support/index.ts';

const ns = useNamespace('oprestart');
useDevnode(ns);
const root = resolve(import.meta.dirname, '../..');
const template = useClusterTemplate('oprestart', ns, {});
const sandboxes = { group: GROUP, version: VERSION, plural: 'sandboxes' };
const net = ns.kc.makeApiClient(NetworkingV1Api);
const processes: Managed[] = [];
let logDir = '';

/** `svc operator` as its own process, watching the test's namespace, its Lease there too. */
function operator(identity: string): Managed {
  const p = startManaged(
    `operator-${identity}`,
    join(root, 'node_modules/.bin/node'),
    [
      join(root, 'cmd/svc.ts'),
      'operator',
      '--kubeconfig',
      inject('kubeconfigPath'),
      '--sandbox-namespaces',
      ns.name,
      '--service-namespace',
      ns.name,
      '--identity',
      identity,
      // Long enough that a replica on a loaded machine keeps its Lease until it is killed
      // (renewals a third of it apart); short enough that the next takes over soon after.
      '--lease-duration-seconds',
      '10',
      '--sandboxd-image',
      'svc:test',
      '--snapshot-wait-seconds',
      '2',
      '--devnode',
      'true',
      '--log-level',
      process.env.SVC_TEST_LOG ?? 'info',
    ],
    join(logDir, `operator-${identity}.log`),
  );
  processes.push(p);
  return p;
}

beforeAll(async () => {
  logDir = await mkdtemp(join(tmpdir(), 'svc-test-oprestart-'));
});
afterAll(async () => {
  for (const p of processes) await p.stop(5_000);
  if (logDir) await rm(logDir, { recursive: true, force: true });
}, 30_000);

/** The operators' logs, for a failure message. */
async function logs(): Promise<string> {
  const parts = await Promise.all(
    processes.map(async (p) => `--- ${p.name}\n${await readFile(p.logPath, 'utf8').catch(() => '')}`),
  );
  return parts.join('\n').slice(-8_000);
}

/** How long the operator may take to start and write its first object on a loaded machine. */
const FIRST_WRITE_MS = 90_000;

/**
 * Watches the Secrets of the test's namespace that match `selector`, calling `seen` with each
 * one added until it returns true; resolves then, or rejects after `timeoutMs`. A watch ends
 * on its own (client-node closes one after 30 s without an event; the apiserver closes
 * them too), and an operator starting on a loaded machine may take longer than that to write
 * anything: an ended watch is opened again from the last resourceVersion it delivered, so no
 * event is missed or delivered twice. Resolves `ready` once the first watch is open.
 */
function secretsAdded(
  selector: { fieldSelector?: string; labelSelector?: string },
  seen: (obj: KubernetesObject) => boolean,
  timeoutMs: number,
): { ready: Promise<void>; done: Promise<void>; stop: () => void } {
  const path = `/api/v1/namespaces/${ns.name}/secrets`;
  let current: AbortController | undefined;
  let stopped = false;
  let settle!: { done: () => void; fail: (err: Error) => void };
  const done = new Promise<void>((resolve, reject) => (settle = { done: resolve, fail: reject }));
  const timer = setTimeout(
    () => settle.fail(new Error(`no matching Secret within ${timeoutMs} ms (${JSON.stringify(selector)})`)),
    timeoutMs,
  );
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    current?.abort();
  };
  void done.then(stop, stop);
  const open = async (resourceVersion: string): Promise<void> => {
    let last = resourceVersion;
    let gone = false;
    current = await new Watch(ns.kc).watch(
      path,
      { ...selector, resourceVersion, allowWatchBookmarks: true },
      (type: string, obj: KubernetesObject) => {
        // An ERROR event (410 Gone): the version is too old to resume from.
        if (type === 'ERROR') gone = true;
        else last = obj.metadata?.resourceVersion ?? last;
        if (type === 'ADDED' && seen(obj)) settle.done();
      },
      () => {
        if (stopped) return;
        // Resumed where it ended; after a 410, from a fresh list (its items checked first).
        (gone ? list() : open(last)).catch((err: unknown) => settle.fail(err as Error));
      },
    );
  };
  const list = async (): Promise<void> => {
    const found = await ns.core.listNamespacedSecret({ namespace: ns.name, ...selector });
    for (const obj of found.items) if (seen(obj)) return settle.done();
    await open(found.metadata!.resourceVersion!);
  };
  return { ready: list(), done, stop };
}

/** What the operator owns of Sandbox `name`, by kind: found by the label it puts on all of it. */
async function owned(name: string) {
  const labelSelector = `svc.io/sandbox=${name}`;
  const namespace = ns.name;
  const items = {
    Secret: (await ns.core.listNamespacedSecret({ namespace, labelSelector })).items,
    PersistentVolumeClaim: (await ns.core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector }))
      .items,
    Pod: (await ns.core.listNamespacedPod({ namespace, labelSelector })).items,
    NetworkPolicy: (await net.listNamespacedNetworkPolicy({ namespace, labelSelector })).items,
  };
  return items as Record<keyof typeof items, KubernetesObject[]>;
}

describe('operator restart', () => {
  test('killing the operator mid-create and starting another leaves one of each owned object', async () => {
    const name = 'crash';
    const first = operator('first');

    // Kill the first operator the moment the first object it creates for the Sandbox (the
    // sandboxd token Secret) is written, while it is still creating the rest.
    let killedAt: KubernetesObject | undefined;
    const watch = secretsAdded(
      { fieldSelector: `metadata.name=${name}-sandboxd` },
      (obj) => {
        first.child.kill('SIGKILL');
        killedAt = obj;
        return true;
      },
      FIRST_WRITE_MS,
    );
    try {
      await watch.ready;
      await createSandbox(ns, name, { templateRef: { name: template } });
      await Promise.race([
        watch.done,
        once(first.child, 'exit').then(async () => {
          if (!killedAt)
            throw new Error(`the first operator exited before creating anything:\n${await logs()}`);
        }),
      ]);
    } finally {
      watch.stop();
    }
    if (first.child.exitCode === null && first.child.signalCode === null) await once(first.child, 'exit');
    expect(first.child.signalCode).toBe('SIGKILL');

    // What the first operator had written when it died: the Secret, perhaps more.
    const atKill = await owned(name);
    const partial = Object.entries(atKill)
      .filter(([, items]) => items.length > 0)
      .map(([kind]) => kind);
    console.log(`owned objects when the first operator was killed: ${partial.join(', ')}`);
    expect(partial).toContain('Secret');

    // The second waits for the dead leader's Lease to expire, then finishes the Sandbox.
    operator('second');
    let sandbox: Sandbox | undefined;
    await eventually(
      async () => {
        sandbox = (await ns.custom.getNamespacedCustomObject({
          ...sandboxes,
          namespace: ns.name,
          name,
        })) as Sandbox;
        return sandbox.status?.phase === 'Running';
      },
      { timeoutMs: 60_000, describe: () => `${name} Running: ${JSON.stringify(sandbox?.status)}` },
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await logs()}`);
    });
    const lease = (await ns.custom.getNamespacedCustomObject({
      group: 'coordination.k8s.io',
      version: 'v1',
      namespace: ns.name,
      plural: 'leases',
      name: 'svc-operator',
    })) as { spec: { holderIdentity: string } };
    expect(lease.spec.holderIdentity).toBe('second');

    const after = await owned(name);
    const uid = sandbox!.metadata.uid;
    for (const [kind, items] of Object.entries(after)) {
      expect(
        items.map((o) => o.metadata?.name),
        kind,
      ).toHaveLength(1);
      expect(items[0]!.metadata?.ownerReferences, kind).toEqual([
        expect.objectContaining({ kind: 'Sandbox', name, uid, controller: true }),
      ]);
    }
    expect(after.Secret[0]!.metadata?.name).toBe(`${name}-sandboxd`);
    expect(after.PersistentVolumeClaim[0]!.metadata?.name).toBe(`${name}-workspace`);
    expect(after.Pod[0]!.metadata?.name).toBe(name);
    expect(after.NetworkPolicy[0]!.metadata?.name).toBe(`sandbox-${name}`);
    // What the first operator created was kept, not replaced: the same token Secret.
    expect(after.Secret[0]!.metadata?.uid).toBe(killedAt!.metadata?.uid);
    for (const [kind, items] of Object.entries(atKill))
      if (items.length)
        expect(after[kind as keyof typeof after][0]!.metadata?.uid, kind).toBe(items[0]!.metadata?.uid);
  }, 120_000);

  test('SIGKILL while creating 20 sandboxes, then a restart: all 20 Running, one of each owned object', async () => {
    // The replica left leading by the test above steps down first.
    for (const p of processes) await p.stop(5_000);
    const names = Array.from({ length: 20 }, (_, i) => `many-${i}`);
    const third = operator('third');
    // Killed once half of the token Secrets exist: the rest of the burst is mid-way.
    const secrets = new Set<string>();
    const watch = secretsAdded(
      { labelSelector: 'svc.io/sandbox' },
      (obj) => {
        const owner = obj.metadata?.labels?.['svc.io/sandbox'] ?? '';
        if (!owner.startsWith('many-') || secrets.size >= 10) return false;
        secrets.add(owner);
        if (secrets.size < 10) return false;
        third.child.kill('SIGKILL');
        return true;
      },
      FIRST_WRITE_MS,
    );
    try {
      await watch.ready;
      await Promise.all(names.map((name) => createSandbox(ns, name, { templateRef: { name: template } })));
      await Promise.race([
        watch.done,
        once(third.child, 'exit').then(async () => {
          if (secrets.size < 10) throw new Error(`the operator exited early:\n${await logs()}`);
        }),
      ]);
    } finally {
      watch.stop();
    }
    if (third.child.exitCode === null && third.child.signalCode === null) await once(third.child, 'exit');
    expect(third.child.signalCode).toBe('SIGKILL');
    const running = async () => {
      const list = (await ns.custom.listNamespacedCustomObject({ ...sandboxes, namespace: ns.name })) as {
        items: Sandbox[];
      };
      return list.items.filter((s) => names.includes(s.metadata.name!));
    };
    const atKill = (await running()).filter((s) => s.status?.phase === 'Running').length;
    console.log(`sandboxes Running when the operator was killed: ${atKill} of 20`);
    expect(atKill).toBeLessThan(20);

    operator('fourth');
    let phases = '';
    await eventually(
      async () => {
        const items = await running();
        phases = items.map((s) => `${s.metadata.name}=${s.status?.phase}`).join(' ');
        return items.length === 20 && items.every((s) => s.status?.phase === 'Running');
      },
      { timeoutMs: 180_000, intervalMs: 500, describe: () => `all 20 Running: ${phases}` },
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await logs()}`);
    });
    const uids = new Map((await running()).map((s) => [s.metadata.name!, s.metadata.uid!]));
    for (const name of names) {
      const after = await owned(name);
      for (const [kind, items] of Object.entries(after)) {
        expect(
          items.map((o) => o.metadata?.name),
          `${name}: ${kind}`,
        ).toHaveLength(1);
        expect(items[0]!.metadata?.ownerReferences, `${name}: ${kind}`).toEqual([
          expect.objectContaining({ kind: 'Sandbox', name, uid: uids.get(name), controller: true }),
        ]);
      }
    }
  }, 300_000);
});
