// The per-installation sandboxd key: the operator creates it at start-up, derives every
// sandbox's token from it, and moves a sandbox holding any other token onto the derived one.
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, describe, expect, test } from 'vitest';
import { GROUP, SandboxdKey, VERSION, sandboxdToken, type Sandbox } from '../../core/index.ts';
import { SandboxdKeySecret, SandboxdLocator, SandboxdUnavailable, mergePatch } from '../../kube/index.ts';
import { startOperator, type RunningOperator } from '../../operator/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  shIn,
  testOperatorSettings,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  createSandbox,
} from '../support/index.ts';

const ns = useNamespace('key');
useDevnode(ns);
const template = useClusterTemplate('key', ns, {});
const sandboxes = { group: GROUP, version: VERSION, plural: 'sandboxes' };
const logger = pino({ level: process.env.SVC_TEST_LOG ?? 'silent' });
const ops: RunningOperator[] = [];

afterAll(async () => {
  for (const o of ops) await o.stop();
}, 30_000);

const get = async (name: string) =>
  (await ns.custom.getNamespacedCustomObject({ ...sandboxes, namespace: ns.name, name })) as Sandbox;
const tokenIn = async (name: string) =>
  Buffer.from(
    (await ns.core.readNamespacedSecret({ name: `${name}-sandboxd`, namespace: ns.name })).data!.token!,
    'base64',
  ).toString();

describe('the sandboxd key', () => {
  test('is missing until the operator starts, which creates it once', async () => {
    const reader = new SandboxdKeySecret({ kc: ns.kc, namespace: ns.name, ttlMs: 0 });
    await expect(reader.read()).rejects.toThrow(SandboxdUnavailable);
    await expect(reader.read()).rejects.toThrow(/does not exist yet/);

    ops.push(
      await startOperator({
        kc: ns.kc,
        logger,
        settings: testOperatorSettings,
        namespace: ns.name,
        leaseNamespace: ns.name,
        identity: 'key-test',
      }),
    );
    const secret = await ns.core.readNamespacedSecret({ name: SandboxdKey.secretName, namespace: ns.name });
    const key = await reader.read();
    expect(key).toHaveLength(32);
    expect(Buffer.from(secret.data!.key!, 'base64').equals(key)).toBe(true);
    // A second replica (or a restart) finds it and keeps it.
    expect(await reader.ensure()).toEqual({ key, created: false });
  }, 30_000);

  test('a sandbox holding another token gets the derived one and a new Pod; its workspace stays', async () => {
    const name = 'legacy';
    await createSandbox(ns, name, { templateRef: { kind: 'ClusterSandboxTemplate', name: template } });
    const running = async () => {
      let s: Sandbox | undefined;
      await eventually(async () => (s = await get(name)).status?.phase === 'Running', {
        timeoutMs: 40_000,
        describe: () => `${name} Running: ${JSON.stringify(s?.status)}`,
      });
      return s!;
    };
    const sandbox = await running();
    const key = await new SandboxdKeySecret({ kc: ns.kc, namespace: ns.name }).read();
    const derived = sandboxdToken(key, { namespace: ns.name, name, uid: sandbox.metadata.uid! });
    expect(await tokenIn(name)).toBe(derived);

    const locator = new SandboxdLocator({
      kc: ns.kc,
      key: () => Promise.resolve(key),
      ttlMs: 0,
      devnode: true,
    });
    expect(await shIn(await locator.client(ns.name, name), 'echo kept > /workspace/marker && echo ok')).toBe(
      'ok\n',
    );

    // What a sandbox made before tokens were derived holds: a random token, in its Secret
    // and in its running sandboxd. Then any change to the Sandbox reconciles it.
    const before = await ns.core.readNamespacedPod({ name, namespace: ns.name });
    await ns.core.patchNamespacedSecret(
      {
        name: `${name}-sandboxd`,
        namespace: ns.name,
        body: { stringData: { token: randomBytes(32).toString('hex') } },
      },
      mergePatch,
    );
    await ns.custom.patchNamespacedCustomObject(
      { ...sandboxes, namespace: ns.name, name, body: { metadata: { annotations: { touched: 'yes' } } } },
      mergePatch,
    );
    await eventually(
      async () =>
        (await ns.core.readNamespacedPod({ name, namespace: ns.name }).catch(() => undefined))?.metadata
          ?.uid !== before.metadata?.uid,
      { timeoutMs: 30_000, describe: () => 'the Pod restarted' },
    );
    expect(await tokenIn(name)).toBe(derived);
    let seen = '';
    await eventually(
      async () =>
        (seen = await locator
          .client(ns.name, name)
          .then((c) => shIn(c, 'cat /workspace/marker'))
          .catch((err: unknown) => String(err))) === 'kept\n',
      { timeoutMs: 40_000, describe: () => `the new Pod's sandboxd reads the workspace: ${seen}` },
    );
  }, 120_000);
});
