// The first exec after Running, as a client sends it the moment its watch says Running: the
// API has already found the sandbox's sandboxd (its Pod read and proven the sandbox's) when
// its cache saw the sandbox turn Running, so the exec itself reads no Pod. The API
// in-process, the operator, devnode and the real sandboxd, against the real control plane.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  waitForSandboxPhase,
  type TestApi,
} from '../support/index.ts';
import { SLOW, createAs } from './code-mode.ts';

const ns = useNamespace('exec-ahead');
useDevnode(ns);
const template = useClusterTemplate('exec-ahead', ns, { command: ['sleep', '86400'] });
useOperator(ns, { identity: 'exec-ahead-test', logger: pino({ level: 'silent' }) });
let api: TestApi;
/** The locator's reads of Pods (`get` by name, `list` by label), by the API under test. */
let podReads = 0;

beforeAll(async () => {
  api = await startTestApi(ns, {
    statusWaitMs: SLOW,
    locatorRequests: (verb, resource) => {
      if (resource === 'pods' && (verb === 'get' || verb === 'list')) podReads++;
    },
  });
}, SLOW);
afterAll(async () => api?.close(), 30_000);

describe('the first exec after Running', () => {
  test(
    'finds its sandboxd found already: one Pod read, when the sandbox turned Running, and none by the exec',
    async () => {
      const name = 'ahead';
      await createAs(api, api.keys.alice, { name, templateRef: { name: template } });
      await waitForSandboxPhase(ns, name, 'Running', SLOW);
      // The API's cache sees Running a moment after the apiserver does; the lookup follows.
      await expect.poll(() => podReads, { timeout: 30_000 }).toBe(1);

      const res = await api.call('POST', `/sandboxes/${name}/exec`, {
        key: api.keys.alice,
        body: { command: ['echo', 'hi'] },
      });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await res.json()).toMatchObject({ exitCode: 0, stdout: 'hi\n', reason: 'completed' });
      expect(podReads).toBe(1);
    },
    SLOW + 60_000,
  );
});
