// make bench-peer CLUSTER=real: our sandboxes beside kubernetes-sigs/agent-sandbox (hack/peer)
// on a real cluster of this machine (hack/cluster: kubelet, containerd, runc, svc-csi), svc
// installed by its chart. Both sides alternate in one run with the same payload: the peer's
// Pod spec is the one our operator made for our first sandbox (same image, same command,
// same init container), and both workspaces are 2Gi claims on `svc-local`. Cold (no pool),
// warm (a pool of 3 each) and a burst of 50 at once. Ours through the public API (the
// TypeScript client) → status.phase Running; the peer's: its object → its Ready condition.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type V1Pod,
  type V1PodSpec,
} from '@kubernetes/client-node';
import { SvcClient } from '../clients/typescript/index.ts';
import { GROUP, Labels, SandboxPod, VERSION, type Sandbox } from '../core/index.ts';
import { freePort, waitFor } from '../test/controlplane/index.ts';
import { startManaged, type Managed } from '../test/controlplane/processes.ts';
import { PEER, PeerSide, blueprint, installPeerCrds, peerControllerArgs } from './peer-side.ts';
import { startRealCluster } from './real.ts';
import { Sight } from './sight.ts';
import { median, percentile, poolFull, round } from './support.ts';

const N = Number(process.env.BENCH_RUNS ?? 20);
const BURST = Number(process.env.BENCH_BURST ?? 50);
const POOL = 3;
const SIZE = '2Gi';
const STORAGE_CLASS = 'svc-local';
const IMAGE = 'docker.io/library/debian:bookworm-slim';
const PEER_NS = 'peer-bench';
const root = join(import.meta.dirname, '..');
const started = performance.now();

async function main(): Promise<void> {
  const peerDir = execFileSync('bash', [join(root, 'hack/peer/build.sh')], { encoding: 'utf8' }).trim();
  const cluster = await startRealCluster(Number(process.env.NODES ?? 1));
  const { kc, env } = cluster;
  const ns = env.namespace;
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const client = new SvcClient({ baseUrl: env.baseUrl, apiKey: env.keys.admin, namespace: ns });
  const logs = await mkdtemp(join(tmpdir(), 'svc-bench-peer-'));
  let crds: string[] = [];
  let peer: PeerSide | undefined;
  let ours: Sight | undefined;
  let controller: Managed | undefined;
  const ourNames = new Set<string>();
  const svcRef = { group: GROUP, version: VERSION };

  // Whatever the bench made goes on every way out (a cluster it brought up goes altogether).
  cluster.beforeClose(async () => {
    ours?.stop();
    peer?.stop();
    await Promise.all([...ourNames].map((n) => client.deleteSandbox(n).catch(() => undefined)));
    await custom
      .deleteNamespacedCustomObject({
        ...svcRef,
        namespace: ns,
        plural: 'sandboxwarmpools',
        name: 'peer-bench',
      })
      .catch(() => undefined);
    // The peer's objects while its controller still runs (it removes its own finalizers).
    await core.deleteNamespace({ name: PEER_NS }).catch(() => undefined);
    await waitFor(
      async () => (await core.readNamespace({ name: PEER_NS }).catch(() => undefined)) === undefined,
      {
        timeoutMs: 180_000,
        describe: () => `namespace ${PEER_NS} gone`,
      },
    ).catch((err: Error) => console.error(err.message));
    await controller?.stop();
    for (const t of ['peer-bench-cold', 'peer-bench-warm'])
      await custom
        .deleteClusterCustomObject({ ...svcRef, plural: 'clustersandboxtemplates', name: t })
        .catch(() => undefined);
    const ext = kc.makeApiClient(ApiextensionsV1Api);
    for (const name of crds) await ext.deleteCustomResourceDefinition({ name }).catch(() => undefined);
    await rm(logs, { recursive: true, force: true });
    console.log(`bench-peer took ${((performance.now() - started) / 1000).toFixed(0)} s in all`);
  });

  try {
    await core.createNamespace({ body: { metadata: { name: PEER_NS } } });
    crds = await installPeerCrds(kc, peerDir);
    // The peer's controller as a process beside the cluster, through the admin kubeconfig: its
    // image is not built here (and where it runs does not move its Pods off our node).
    process.env.KUBECONFIG = env.kubeconfig;
    controller = startManaged(
      'peer',
      join(peerDir, 'agent-sandbox-controller'),
      peerControllerArgs(await freePort(), await freePort()),
      join(logs, 'peer.log'),
    );

    // Ours: a cold template and a warm one, the same image and workspace as the peer's.
    for (const name of ['peer-bench-cold', 'peer-bench-warm'])
      await custom.createClusterCustomObject({
        ...svcRef,
        plural: 'clustersandboxtemplates',
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'ClusterSandboxTemplate',
          metadata: { name },
          spec: { image: IMAGE, storage: { size: SIZE, storageClassName: STORAGE_CLASS } },
        },
      });
    await custom.createNamespacedCustomObject({
      ...svcRef,
      namespace: ns,
      plural: 'sandboxwarmpools',
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'SandboxWarmPool',
        metadata: { name: 'peer-bench' },
        spec: { templateRef: { name: 'peer-bench-warm' }, mode: 'code', replicas: POOL },
      },
    });

    const running = new Map<string, number>();
    ours = await Sight.open(kc, `/apis/${GROUP}/${VERSION}/namespaces/${ns}/sandboxes`, (_t, s: Sandbox) => {
      const name = s.metadata.name!;
      if (s.status?.phase === 'Running' && !running.has(name)) running.set(name, performance.now());
    });
    const runningAt = (name: string, timeoutMs = 180_000) =>
      waitFor(
        () => {
          ours!.check();
          return Promise.resolve(running.has(name));
        },
        { timeoutMs, intervalMs: 2, describe: () => `${name} Running` },
      ).then(() => running.get(name)!);
    const svc = async (name: string, template: string) => {
      ourNames.add(name);
      const t0 = performance.now();
      await client.createSandbox({ name, templateRef: { name: template } });
      return (await runningAt(name)) - t0;
    };

    // The peer's Pod spec is our first sandbox's own, less what belongs to that one sandbox.
    const warmup = await svc('svc-first', 'peer-bench-cold');
    const pod = (
      await core.listNamespacedPod({ namespace: ns, labelSelector: `${Labels.sandbox}=svc-first` })
    ).items[0] as V1Pod;
    const tokenVolume = pod.spec!.volumes!.find((v) => v.name === 'svc-token')!;
    const token = await core.readNamespacedSecret({ namespace: ns, name: tokenVolume.secret!.secretName! });
    await core.createNamespacedSecret({
      namespace: PEER_NS,
      body: {
        metadata: { name: 'peer-sandboxd' },
        data: { [SandboxPod.tokenKey]: token.data![SandboxPod.tokenKey]! },
      },
    });
    const spec = peerPodSpec(pod.spec!, 'peer-sandboxd');
    const plan = blueprint(spec, SIZE, STORAGE_CLASS);
    peer = await PeerSide.open(kc, PEER_NS);
    await peer.template('bench', plan);
    await peer.pool('bench', 'bench', POOL);
    console.log(
      `first sandbox (uncounted): ${warmup.toFixed(0)} ms; the peer's Pod: ${spec.containers.map((c) => c.image).join(', ')}`,
    );

    const peerSide = peer;
    // Every create starts from the same state: both pools full and still, no Pod going.
    const quiet = () =>
      waitFor(
        async () => {
          if (!(await poolFull(kc, ns, 'peer-bench', POOL)) || !(await peerSide.poolFull('bench', POOL)))
            return false;
          const pods = await Promise.all(
            [ns, PEER_NS].map((namespace) => core.listNamespacedPod({ namespace })),
          );
          return pods.every((l) => l.items.every((p) => !p.metadata?.deletionTimestamp));
        },
        {
          timeoutMs: 300_000,
          intervalMs: 50,
          describe: () => 'the pools never refilled (or Pods never went)',
        },
      );
    const peerCold = async (name: string) => {
      const t0 = performance.now();
      await peerSide.sandbox(name, plan);
      return (await peerSide.readyAt(`sandboxes/${name}`, 180_000)) - t0;
    };
    const peerWarm = async (name: string) => {
      const t0 = performance.now();
      await peerSide.claim(name, 'bench');
      return (await peerSide.readyAt(`sandboxclaims/${name}`, 180_000)) - t0;
    };
    const dropOurs = async (name: string) => {
      await client.deleteSandbox(name).catch(() => undefined);
      ourNames.delete(name);
    };
    await dropOurs('svc-first');

    const out = {
      svcCold: [] as number[],
      peerCold: [] as number[],
      svcWarm: [] as number[],
      peerWarm: [] as number[],
    };
    for (let i = -1; i < N; i++) {
      // Round 0 warms both sides up (images, caches) and is not counted.
      const r = {} as Record<keyof typeof out, number>;
      await quiet();
      r.svcCold = await svc(`cold-${i + 1}`, 'peer-bench-cold');
      await dropOurs(`cold-${i + 1}`);
      await quiet();
      r.peerCold = await peerCold(`pcold-${i + 1}`);
      await peerSide.delete(PEER.core, 'sandboxes', `pcold-${i + 1}`);
      await quiet();
      r.svcWarm = await svc(`warm-${i + 1}`, 'peer-bench-warm');
      await dropOurs(`warm-${i + 1}`);
      await quiet();
      r.peerWarm = await peerWarm(`pwarm-${i + 1}`);
      await peerSide.delete(PEER.ext, 'sandboxclaims', `pwarm-${i + 1}`);
      if (i >= 0) for (const k of Object.keys(out) as (keyof typeof out)[]) out[k].push(r[k]);
      console.log(
        `round ${i + 1}: svc cold ${r.svcCold.toFixed(0)} ms, peer cold ${r.peerCold.toFixed(0)} ms, svc warm ${r.svcWarm.toFixed(0)} ms, peer warm ${r.peerWarm.toFixed(0)} ms`,
      );
    }

    // The burst: BURST cold creates at once on each side, until every one is Running / Ready.
    const burst = async (side: 'svc' | 'peer') => {
      await quiet();
      const names = Array.from({ length: BURST }, (_, i) => `${side === 'svc' ? 'b' : 'pb'}-${i}`);
      const t0 = performance.now();
      if (side === 'svc') {
        names.forEach((n) => ourNames.add(n));
        await Promise.all(
          names.map((name) => client.createSandbox({ name, templateRef: { name: 'peer-bench-cold' } })),
        );
        await waitFor(
          () => {
            ours!.check();
            return Promise.resolve(names.every((n) => running.has(n)));
          },
          {
            timeoutMs: 900_000,
            intervalMs: 20,
            describe: () => `${names.filter((n) => running.has(n)).length} of ${BURST} Running`,
          },
        );
        const s = (Math.max(...names.map((n) => running.get(n)!)) - t0) / 1000;
        await Promise.all(names.map(dropOurs));
        return s;
      }
      await Promise.all(names.map((name) => peerSide.sandbox(name, plan)));
      const keys = names.map((n) => `sandboxes/${n}`);
      await waitFor(() => Promise.resolve(peerSide.readyCount(keys) === BURST), {
        timeoutMs: 900_000,
        intervalMs: 20,
        describe: () => `${peerSide.readyCount(keys)} of ${BURST} Ready`,
      });
      const s = (Math.max(...(await Promise.all(keys.map((k) => peerSide.readyAt(k))))) - t0) / 1000;
      await Promise.all(names.map((n) => peerSide.delete(PEER.core, 'sandboxes', n)));
      return s;
    };
    const svcBurst = await burst('svc');
    console.log(`svc burst of ${BURST}: all Running after ${svcBurst.toFixed(1)} s`);
    const peerBurst = await burst('peer');
    console.log(`peer burst of ${BURST}: all Ready after ${peerBurst.toFixed(1)} s`);

    const p50 = (xs: number[]) => round(median(xs), 1);
    for (const k of Object.keys(out) as (keyof typeof out)[])
      console.log(`${k}: p50 ${median(out[k]).toFixed(0)} ms  p99 ${percentile(out[k], 99).toFixed(0)} ms`);
    console.log(
      JSON.stringify({
        bench: 'peer',
        cluster: 'real',
        svc_cold_p50_ms: p50(out.svcCold),
        peer_cold_p50_ms: p50(out.peerCold),
        cold_ratio: round(median(out.svcCold) / median(out.peerCold), 2),
        svc_warm_p50_ms: p50(out.svcWarm),
        peer_warm_p50_ms: p50(out.peerWarm),
        warm_ratio: round(median(out.svcWarm) / median(out.peerWarm), 2),
        svc_burst50_s: round(svcBurst, 1),
        peer_burst50_s: round(peerBurst, 1),
        burst_ratio: round(svcBurst / peerBurst, 2),
      }),
    );
  } catch (err) {
    console.error(err);
    const log = await readFile(join(logs, 'peer.log'), 'utf8').catch(() => '');
    console.error(`--- last lines of the peer's log ---\n${log.trimEnd().split('\n').slice(-30).join('\n')}`);
    process.exitCode = 1;
  } finally {
    await cluster.close();
  }
}

await main();

/**
 * Our sandbox Pod's spec for the peer: its node, hostname and the admission's service-account
 * volume dropped, its workspace volume left to the peer (which adds one per claim template,
 * named after it), its sandboxd token from the peer's own Secret.
 */
function peerPodSpec(ours: V1PodSpec, tokenSecret: string): V1PodSpec {
  const spec = structuredClone(ours);
  delete spec.nodeName;
  delete spec.hostname;
  const dropped = new Set(
    spec
      .volumes!.filter(
        (v) => v.name === 'workspace' || v.projected?.sources?.some((s) => s.serviceAccountToken),
      )
      .map((v) => v.name),
  );
  spec.volumes = spec
    .volumes!.filter((v) => !dropped.has(v.name))
    .map((v) => (v.name === 'svc-token' ? { ...v, secret: { ...v.secret, secretName: tokenSecret } } : v));
  for (const c of [...(spec.initContainers ?? []), ...spec.containers])
    c.volumeMounts = c.volumeMounts?.filter((m) => m.name === 'workspace' || !dropped.has(m.name));
  return spec;
}
