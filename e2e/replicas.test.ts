// Two API replicas on a real cluster (docs/multi-replica.md): runs live in sandboxd, not in
// an API process, so an invoke started through one API Pod is canceled through the other.
// Each Pod is reached directly (a forwarder from 127.0.0.1 to its Pod IP, dialled from its
// node's namespace), not through the Service, so which replica carries what is certain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, SvcClient } from '../clients/typescript/index.ts';
import { e2eEnv, sandboxName, svcClient } from './support/index.ts';
import { controlPlane, forwardTo, kubectlOk, type Forwarder } from './support/kube.ts';

const alice = svcClient('alice');
const name = sandboxName('e2e-repl');
// A number no other process in the sandbox has in its command line.
const marker = 'sleep 3571';
const forwarders: Forwarder[] = [];
const replicas: { pod: string; client: SvcClient }[] = [];

interface PodList {
  items: {
    metadata: { name: string; deletionTimestamp?: string };
    spec: { nodeName: string; containers: { ports?: { name?: string; containerPort: number }[] }[] };
    status: { podIP?: string; conditions?: { type: string; status: string }[] };
  }[];
}

beforeAll(async () => {
  await alice.createSandbox({ name, mode: 'agent', templateRef: { name: 'default' } });
  const pods = (
    JSON.parse(
      await kubectlOk([
        '-n',
        controlPlane.namespace,
        'get',
        'pods',
        '-l',
        'app.kubernetes.io/component=api',
        '-o',
        'json',
      ]),
    ) as PodList
  ).items.filter(
    (p) =>
      !p.metadata.deletionTimestamp &&
      p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  );
  // The chart's api.replicas: 2, both Ready (install.sh waited for the rollout).
  expect(pods.map((p) => p.metadata.name)).toHaveLength(2);
  for (const p of pods) {
    const port = p.spec.containers[0]!.ports!.find((x) => x.name === 'http')!.containerPort;
    const fwd = await forwardTo(p.spec.nodeName, `${p.status.podIP}:${port}`);
    forwarders.push(fwd);
    const { keys, namespace } = e2eEnv();
    replicas.push({
      pod: p.metadata.name,
      client: new SvcClient({ baseUrl: fwd.url, apiKey: keys.alice, namespace }),
    });
  }
  await alice.waitForPhase(name, 'Running', { timeoutMs: 240_000 });
  const configured = await (
    await alice.configureSandbox(name, {
      files: [
        // Reads its input, starts a child, says both pids, and waits for the child.
        { path: '/workspace/repl.sh', content: `read -r line\n${marker} &\necho "running $$ $!"\nwait\n` },
      ],
      entrypoint: ['sh', '/workspace/repl.sh'],
    })
  ).toArray();
  expect(configured.at(-1)?.event).toBe('result');
}, 300_000);

afterAll(async () => {
  await Promise.all(forwarders.map((f) => f.stop()));
  await alice.deleteSandbox(name).catch((err: unknown) => {
    if (!(err instanceof NotFoundError)) throw err;
  });
});

/** The entrypoint's processes still alive in the sandbox: `pid cmdline` lines. */
async function alive(pids: string[]): Promise<string> {
  const probe = pids.map((p) => `[ -d /proc/${p} ] && echo "${p} $(tr '\\0' ' ' </proc/${p}/cmdline)"`);
  const r = await alice.execSandbox(name, { command: ['sh', '-c', `${probe.join('; ')}; true`] });
  expect(r.exitCode).toBe(0);
  return r.stdout;
}

describe('two API replicas', () => {
  it('an invoke started through one replica is canceled through the other: start, log, exit -1 canceled, and its processes are gone', async () => {
    const [a, b] = replicas;
    expect(a!.pod).not.toBe(b!.pod);
    const stream = await a!.client.invokeSandbox(name, 'go\n');
    const events: { event: string; data: unknown }[] = [];
    let pids: string[] = [];
    for await (const e of stream) {
      events.push({ event: e.event, data: e.data });
      if (e.event === 'log') {
        const m = /^running (\d+) (\d+)\n$/.exec(e.data.data);
        expect(m, e.data.data).not.toBeNull();
        pids = [m![1]!, m![2]!];
        // Running, so the check after the cancel is not vacuous.
        expect(await alive(pids)).toBe(`${pids[0]} sh /workspace/repl.sh \n${pids[1]} ${marker} \n`);
        const invokeId = (events[0]!.data as { invokeId: string }).invokeId;
        expect(await b!.client.cancelInvoke(name, invokeId)).toEqual({ invokeId, status: 'canceling' });
      }
      // No break: the stream must end by itself after the exit event.
    }
    expect(events.map((e) => e.event)).toEqual(['start', 'log', 'exit']);
    const invokeId = (events[0]!.data as { invokeId: string }).invokeId;
    expect(invokeId).toMatch(/^inv-/);
    expect(events[2]!.data).toMatchObject({ invokeId, exitCode: -1, reason: 'canceled' });
    expect((events[2]!.data as { durationMs: number }).durationMs).toBeGreaterThan(0);
    // SIGTERM went to the whole process group: the shell and its child.
    await expect.poll(() => alive(pids), { timeout: 15_000, interval: 500 }).toBe('');
    // Neither replica knows the invoke any more.
    for (const r of replicas) {
      await expect(r.client.cancelInvoke(name, invokeId)).rejects.toMatchObject({ status: 404 });
    }
  }, 180_000);
});
