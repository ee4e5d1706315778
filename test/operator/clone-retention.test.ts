// A clone's VolumeSnapshot, through the whole stack (API, operator, devnode): marked with its
// owner and source; deleted once the clone's workspace is hydrated from it, unless the
// policy in force keeps clone snapshots.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CloneResponse } from '../../core/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  readSnapshot,
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  waitForSandboxPhase,
  type TestApi,
} from '../support/index.ts';

const ns = useNamespace('opsnap');
useDevnode(ns);
const template = useClusterTemplate('opsnap', ns, {});
useOperator(ns, { identity: 'snap-test', logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }) });

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi(ns, { statusWaitMs: 120_000 });
  const created = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name: 'src', templateRef: { name: template } },
  });
  expect(created.status, await created.clone().text()).toBe(201);
  await waitForSandboxPhase(ns, 'src', 'Running', 120_000);
}, 180_000);
afterAll(async () => {
  await api?.close();
}, 30_000);

/** Clones `src` as alice, waits until the clone runs; returns the snapshot's name. */
async function cloneRunning(name: string): Promise<string> {
  const res = await api.call('POST', '/sandboxes/src/clone', { key: api.keys.alice, body: { name } });
  expect(res.status, await res.clone().text()).toBe(202);
  const { snapshot } = (await res.json()) as CloneResponse;
  await waitForSandboxPhase(ns, name, 'Running', 120_000);
  return snapshot;
}

const exists = (name: string) =>
  readSnapshot(ns, name).then(
    () => true,
    (err: { code?: number }) => {
      if (err.code === 404) return false;
      throw err;
    },
  );

describe('clone snapshot retention', () => {
  test('kept after hydration when the policy says keepCloneSnapshots', async () => {
    await api.deps.governance.store.put({ keepCloneSnapshots: true }, ns.name);
    try {
      const snapshot = await cloneRunning('kept');
      // The operator decides in the pass that finds the claim bound, before Running.
      expect(await exists(snapshot)).toBe(true);
    } finally {
      await api.deps.governance.store.remove(ns.name);
    }
  });

  test('deleted by default once the clone is hydrated, with an Event saying so', async () => {
    const snapshot = await cloneRunning('dropped');
    await eventually(async () => !(await exists(snapshot)), {
      timeoutMs: 30_000,
      describe: () => `snapshot ${snapshot} deleted`,
    });
    const messages = async () =>
      (
        await ns.core.listNamespacedEvent({
          namespace: ns.name,
          fieldSelector: 'involvedObject.name=dropped,reason=SnapshotDeleted',
        })
      ).items.map((e) => e.message);
    await expect
      .poll(messages, { timeout: 10_000 })
      .toEqual([
        `VolumeSnapshot ${snapshot} deleted: the workspace is hydrated from it (a policy with keepCloneSnapshots keeps it)`,
      ]);
  });
});
