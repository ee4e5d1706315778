// The apiserver requests one POST /api/v1/sandboxes makes, counted on the API's own client
// (`countingKubeConfig`): in a burst every one of them is paid N times, so the create path
// makes none it does not need. Without quotas the quota ledger is neither read nor written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, useNamespace, type TestApi } from '../support/index.ts';

const ns = useNamespace('api-creq');
const requests: Record<string, number> = {};
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi(ns, {
    requests: (verb, resource) => {
      requests[`${verb} ${resource}`] = (requests[`${verb} ${resource}`] ?? 0) + 1;
    },
  });
});
afterAll(async () => api.close());

const reset = () => {
  for (const k of Object.keys(requests)) delete requests[k];
};

/** Creates `name` as alice and waits until the API's cache has it (its watch saw the write). */
async function create(name: string): Promise<void> {
  const res = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name, templateRef: { name: 'default' } },
  });
  expect(res.status).toBe(201);
  await expect.poll(() => api.deps.cache.get(ns.name, name) !== undefined, { timeout: 10_000 }).toBe(true);
}

describe('the requests of a create', () => {
  it('without quotas: its reads and its write, and nothing of the quota ledger', async () => {
    await create('warm'); // the first create's one-off reads (the installation key, …)
    reset();
    await create('counted');
    expect(requests).toEqual({
      'get namespaces': 1, // enabled for sandboxes?
      'get configmaps': 1, // the governance policy, read afresh
      'get clustersandboxtemplates': 1,
      // The names the sandbox will need, free?
      'get pods': 1,
      'get persistentvolumeclaims': 1,
      // The token Secret's; and the API keys (read on every call here: the harness's key
      // store caches nothing, the API's keeps them a second).
      'get secrets': 2,
      'get networkpolicies': 1,
      'create sandboxes': 1,
    });
  });

  it('with a quota: the reservation is made, and released once the Sandbox is written', async () => {
    await api.deps.governance.store.put({ maxSandboxesPerUser: 10 }, ns.name);
    reset();
    await create('quota');
    const ledger = () =>
      ns.core
        .readNamespacedConfigMap({ name: 'svc-quota-ledger', namespace: ns.name })
        .then((cm) => cm.data ?? {});
    await expect.poll(ledger, { timeout: 10_000 }).toEqual({});
    expect(requests['list sandboxes']).toBeGreaterThanOrEqual(1);
    // Reserved (created, or replaced when it exists), then released (read, replaced).
    expect((requests['create configmaps'] ?? 0) + (requests['update configmaps'] ?? 0)).toBe(2);
  });
});
