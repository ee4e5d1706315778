// Two nodes: sandboxes created through the public API land on both (the scheduler's own
// choice: svc asks for no node), and the API reaches sandboxd on either — exec and files on a
// sandbox of each node, whose Pods are read (as a check only) to name their nodes.
import { createHash, randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../clients/typescript/index.ts';
import { e2eEnv, sandboxName, sandboxObjects, svcClient } from './support/index.ts';

const alice = svcClient('alice');
/**
 * Four at once, each small (the `minimal` template); more, one at a time and at most four, while
 * they all sit on one node: the scheduler's spreading is its own choice, and other files'
 * sandboxes on the same cluster can make one node the emptier for a while (four of four
 * landed on one node once in a CI run).
 */
const names = Array.from({ length: 4 }, (_, i) => sandboxName(`e2e-node${i}`));
const MORE_AT_MOST = 4;

function core(): CoreV1Api {
  const kc = new KubeConfig();
  kc.loadFromFile(e2eEnv().kubeconfig);
  return kc.makeApiClient(CoreV1Api);
}

/** The node each sandbox's Pod runs on (its Pod named by status.podName). */
async function nodesOf(sandboxes: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const s of sandboxes) {
    const podName = (await alice.getSandbox(s)).status.podName!;
    const pod = await core().readNamespacedPod({ name: podName, namespace: e2eEnv().namespace });
    out.set(s, pod.spec!.nodeName!);
  }
  return out;
}

beforeAll(async () => {
  const nodes = await core().listNode();
  // The tier runs with NODES=2 (make test-e2e); this file is about two nodes.
  expect(nodes.items.map((n) => n.metadata!.name).sort()).toEqual(['n1', 'n2']);
  await Promise.all(
    names.map((name) => alice.createSandbox({ name, mode: 'code', templateRef: { name: 'minimal' } })),
  );
  await Promise.all(names.map((n) => alice.waitForPhase(n, 'Running', { timeoutMs: 240_000 })));
  for (let i = 0; i < MORE_AT_MOST && new Set((await nodesOf(names)).values()).size < 2; i++) {
    const name = sandboxName(`e2e-node${names.length}`);
    names.push(name);
    await alice.createSandbox({ name, mode: 'code', templateRef: { name: 'minimal' } });
    await alice.waitForPhase(name, 'Running', { timeoutMs: 120_000 });
  }
}, 900_000);

afterAll(async () => {
  await Promise.all(
    names.map((n) =>
      alice.deleteSandbox(n).catch((err: unknown) => {
        if (!(err instanceof NotFoundError)) throw err;
      }),
    ),
  );
});

describe('sandboxes on two nodes', () => {
  it('spread over both nodes', async () => {
    const placed = await nodesOf(names);
    console.log(`placement: ${[...placed].map(([s, n]) => `${s}→${n}`).join(', ')}`);
    expect(new Set(placed.values())).toEqual(new Set(['n1', 'n2']));
  });

  it('the API reaches sandboxd on either node: exec and files on a sandbox of each', async () => {
    const placed = await nodesOf(names);
    const onN1 = names.find((s) => placed.get(s) === 'n1')!;
    const onN2 = names.find((s) => placed.get(s) === 'n2')!;
    expect(placed.get(onN1)).not.toBe(placed.get(onN2));
    for (const s of [onN1, onN2]) {
      const exec = await alice.execSandbox(s, {
        command: ['sh', '-c', 'echo "$0 on $(cat /etc/hostname)"', s],
      });
      expect(exec).toMatchObject({
        exitCode: 0,
        stdout: `${s} on ${(await alice.getSandbox(s)).status.podName}\n`,
      });
      const bytes = randomBytes(64 * 1024);
      const sha = createHash('sha256').update(bytes).digest('hex');
      await alice.writeFile(s, '/workspace/node.bin', bytes);
      const back = Buffer.from(await (await alice.readFile(s, '/workspace/node.bin')).arrayBuffer());
      expect(createHash('sha256').update(back).digest('hex')).toBe(sha);
      const inside = await alice.execSandbox(s, { command: ['sha256sum', '/workspace/node.bin'] });
      expect(inside).toMatchObject({ exitCode: 0, stdout: `${sha}  /workspace/node.bin\n` });
    }
  });

  it('delete leaves nothing of any of them, on either node', async () => {
    for (const s of names) {
      const before = await sandboxObjects(s);
      for (const kind of ['Pod', 'PersistentVolumeClaim', 'Secret', 'NetworkPolicy']) {
        expect(
          before.some((o) => o.startsWith(`${kind}/`)),
          `${kind} in ${before.join(', ')}`,
        ).toBe(true);
      }
    }
    const started = Date.now();
    await Promise.all(names.map((s) => alice.deleteSandbox(s)));
    // The garbage collector and two kubelets at work: minutes on a loaded machine.
    await expect
      .poll(async () => (await Promise.all(names.map((s) => sandboxObjects(s)))).flat(), {
        timeout: 240_000,
        interval: 1_000,
      })
      .toEqual([]);
    console.log(`${names.length} sandboxes deleted, nothing left, in ${Date.now() - started} ms`);
  });
});
