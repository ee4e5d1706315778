// make bench-peer CLUSTER=real: our sandboxes beside kubernetes-sigs/agent-sandbox (hack/peer)
// on a real cluster of this machine (hack/cluster: kubelet, containerd, runc, svc-csi), svc
// installed by its chart. Both sides alternate in one run with the same payload: the peer's
// Pod spec is the one our operator made for our first sandbox (same image, same command,
// same init container), and both workspaces are 2Gi claims on `svc-local`. Cold (no pool),
// warm (a pool of 3 each) and a burst of 50 at once.
//
// "Running" is not the same observable on both sides: ours is status.phase Running (the
// operator's own check of sandboxd answered, then the status written), the peer's its Ready
// condition (its Pod Ready: the kubelet's readiness probe, every 2 s). So cold and burst are
// timed to one observable both share, sandboxd's first answer from the Pod's node
// (bench/first-answer.ts), with each side's own definition and the kubelet's report of the
// main container running printed beside. Warm is each side's own: both Pods already answer.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
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
import { eventually, freePort, type Managed, startManaged } from '../stack/index.ts';
import { FirstAnswer } from './first-answer.ts';
import { PEER, PeerSide, blueprint, installPeerCrds, peerControllerArgs } from './peer-side.ts';
import { startRealCluster } from './real.ts';
import { Sight } from './sight.ts';
import { createRetrying, median, percentile, poolFull, round } from './support.ts';

const N = Number(process.env.BENCH_RUNS ?? 20);
const BURST = Number(process.env.BENCH_BURST ?? 50);
const POOL = Number(process.env.BENCH_POOL ?? 3);
const SIZE = '2Gi';
const STORAGE_CLASS = 'svc-local';
const IMAGE = 'docker.io/library/debian:bookworm-slim';
const PEER_NS = 'peer-bench';
const root = join(import.meta.dirname, '..');
const started = performance.now();

/** What the bench saw of one measured sandbox, in ms on this process's clock. */
interface Seen {
  /** How often, at most, its first answer is asked for once it backed off (ms). */
  capMs: number;
  /** The kubelet's report of the main container running (a Pod watch event). */
  container?: number;
  /** sandboxd's first answer from the Pod's node. */
  answer?: Promise<number>;
}

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
  const sights: Sight[] = [];
  let prober: FirstAnswer | undefined;
  let controller: Managed | undefined;
  const ourNames = new Set<string>();
  const svcRef = { group: GROUP, version: VERSION };

  // Whatever the bench made goes on every way out (a cluster it brought up goes altogether).
  cluster.beforeClose(async () => {
    for (const s of sights) s.stop();
    peer?.stop();
    prober?.stop();
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
    await eventually(
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
    // Ours are gone when their Pods are (the pool's too): a given cluster is left as found.
    await eventually(
      async () =>
        (await core.listNamespacedPod({ namespace: ns, labelSelector: Labels.sandbox })).items.length === 0,
      { timeoutMs: 180_000, intervalMs: 500, describe: () => `the bench's sandbox Pods in ${ns} gone` },
    ).catch((err: Error) => console.error(err.message));
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
    prober = new FirstAnswer(cluster.run, cluster.nodes);

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

    // The measured sandboxes' Pods, on both sides: `svc/NAME` and `peer/NAME`.
    const seen = new Map<string, Seen>();
    const onPod = (key: string | undefined, pod: V1Pod) => {
      const s = key ? seen.get(key) : undefined;
      if (!key || !s || pod.metadata?.deletionTimestamp) return;
      const main = pod.status?.containerStatuses?.find((c) => c.name === SandboxPod.container);
      if (main?.state?.running) s.container ??= performance.now();
      const ip = pod.status?.podIP;
      if (ip && pod.spec?.nodeName && !s.answer)
        s.answer = prober!.probe(key, pod.spec.nodeName, ip, s.capMs);
    };
    sights.push(
      await Sight.open(kc, `/api/v1/namespaces/${ns}/pods`, (_t, pod: V1Pod) =>
        onPod(pod.metadata?.labels?.[Labels.sandbox] && `svc/${pod.metadata.labels[Labels.sandbox]}`, pod),
      ),
      await Sight.open(kc, `/api/v1/namespaces/${PEER_NS}/pods`, (_t, pod: V1Pod) => {
        const owner = pod.metadata?.ownerReferences?.find((o) => o.kind === 'Sandbox')?.name;
        onPod(owner && `peer/${owner}`, pod);
      }),
    );
    const running = new Map<string, number>();
    sights.push(
      await Sight.open(kc, `/apis/${GROUP}/${VERSION}/namespaces/${ns}/sandboxes`, (_t, s: Sandbox) => {
        const name = s.metadata.name!;
        if (s.status?.phase === 'Running' && !running.has(name)) running.set(name, performance.now());
      }),
    );
    // Every wait of the bench throws once a watch is lost, rather than wait for what it cannot see.
    const look = () => {
      for (const s of sights) s.check();
    };
    const runningAt = (name: string, timeoutMs = 180_000) =>
      eventually(
        () => {
          look();
          return Promise.resolve(running.has(name));
        },
        { timeoutMs, intervalMs: 2, describe: () => `${name} Running` },
      ).then(() => running.get(name)!);
    const answerOf = async (key: string, timeoutMs = 180_000) => {
      await eventually(
        () => {
          look();
          return Promise.resolve(seen.get(key)?.answer !== undefined);
        },
        { timeoutMs, intervalMs: 5, describe: () => `${key}'s Pod with an IP` },
      );
      return seen.get(key)!.answer!;
    };
    /** Timed from `t0`: own definition, the kubelet's container running, sandboxd's first answer. */
    const three = async (key: string, t0: number, own: number) => {
      const answer = await answerOf(key);
      const container = seen.get(key)!.container;
      return {
        own: own - t0,
        container: container === undefined ? NaN : container - t0,
        answer: answer - t0,
      };
    };
    const svcCold = async (name: string, template = 'peer-bench-cold') => {
      ourNames.add(name);
      seen.set(`svc/${name}`, { capMs: 20 });
      const t0 = performance.now();
      await client.createSandbox({ name, templateRef: { name: template } });
      return three(`svc/${name}`, t0, await runningAt(name));
    };

    // The peer's Pod spec is our first sandbox's own, less what belongs to that one sandbox.
    const warmup = await svcCold('svc-first');
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
      `first sandbox (uncounted): Running ${warmup.own.toFixed(0)} ms, answered ${warmup.answer.toFixed(0)} ms; the peer's Pod: ${[...(spec.initContainers ?? []), ...spec.containers].map((c) => `${c.name}=${c.image}`).join(', ')}; load average ${loadavg()[0]!.toFixed(1)}`,
    );

    const peerSide = peer;
    // Every create starts from the same state: both pools full and still, no Pod going.
    const quiet = async () => {
      look();
      await eventually(
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
      look();
    };
    const peerCold = async (name: string) => {
      seen.set(`peer/${name}`, { capMs: 20 });
      const t0 = performance.now();
      await peerSide.sandbox(name, plan);
      return three(`peer/${name}`, t0, await peerSide.readyAt(`sandboxes/${name}`, 180_000));
    };
    const svcWarm = async (name: string) => {
      ourNames.add(name);
      const t0 = performance.now();
      await client.createSandbox({ name, templateRef: { name: 'peer-bench-warm' } });
      return (await runningAt(name)) - t0;
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

    type Three = Awaited<ReturnType<typeof three>>;
    const cold = { svc: [] as Three[], peer: [] as Three[] };
    const warm = { svc: [] as number[], peer: [] as number[] };
    const loads: string[] = [];
    for (let i = -1; i < N; i++) {
      // Round 0 warms both sides up (images, caches) and is not counted.
      loads.push(loadavg()[0]!.toFixed(1));
      // Each side in turn, the first one alternating by round, so that neither always
      // follows the other's teardown or gets the machine's quieter moment.
      const step = async <T>(run: () => Promise<T>, drop: () => Promise<void>): Promise<T> => {
        await quiet();
        const t = await run();
        await drop();
        return t;
      };
      const n = i + 1;
      const coldSvc = () =>
        step(
          () => svcCold(`cold-${n}`),
          () => dropOurs(`cold-${n}`),
        );
      const coldPeer = () =>
        step(
          () => peerCold(`pcold-${n}`),
          () => peerSide.delete(PEER.core, 'sandboxes', `pcold-${n}`),
        );
      const warmSvc = () =>
        step(
          () => svcWarm(`warm-${n}`),
          () => dropOurs(`warm-${n}`),
        );
      const warmPeer = () =>
        step(
          () => peerWarm(`pwarm-${n}`),
          () => peerSide.delete(PEER.ext, 'sandboxclaims', `pwarm-${n}`),
        );
      const svcFirst = n % 2 === 1;
      let sc, pc, sw, pw;
      if (svcFirst) {
        sc = await coldSvc();
        pc = await coldPeer();
        sw = await warmSvc();
        pw = await warmPeer();
      } else {
        pc = await coldPeer();
        sc = await coldSvc();
        pw = await warmPeer();
        sw = await warmSvc();
      }
      if (i >= 0) {
        cold.svc.push(sc);
        cold.peer.push(pc);
        warm.svc.push(sw);
        warm.peer.push(pw);
      }
      const c = (t: Three) =>
        `answered ${t.answer.toFixed(0)} (container ${t.container.toFixed(0)}, own ${t.own.toFixed(0)})`;
      console.log(
        `round ${i + 1}${i < 0 ? ' (uncounted)' : ''}: cold svc ${c(sc)}, peer ${c(pc)}; warm svc ${sw.toFixed(0)}, peer ${pw.toFixed(0)} ms`,
      );
    }

    // The burst: BURST cold creates at once on each side, until every one answers (and is
    // Running / Ready, printed beside).
    const burst = async (side: 'svc' | 'peer') => {
      await quiet();
      const names = Array.from({ length: BURST }, (_, i) => `${side === 'svc' ? 'b' : 'pb'}-${i}`);
      const keys = names.map((n) => `${side}/${n}`);
      // 100 Pods asked every 20 ms would load the machine they are timed on.
      for (const k of keys) seen.set(k, { capMs: 100 });
      const t0 = performance.now();
      let own: number;
      if (side === 'svc') {
        names.forEach((n) => ourNames.add(n));
        await Promise.all(
          names.map((name) => createRetrying(client, { name, templateRef: { name: 'peer-bench-cold' } })),
        );
        await eventually(
          () => {
            look();
            return Promise.resolve(names.every((n) => running.has(n)));
          },
          {
            timeoutMs: 900_000,
            intervalMs: 20,
            describe: () => `${names.filter((n) => running.has(n)).length} of ${BURST} Running`,
          },
        );
        own = Math.max(...names.map((n) => running.get(n)!));
      } else {
        await Promise.all(names.map((name) => peerSide.sandbox(name, plan)));
        const ready = names.map((n) => `sandboxes/${n}`);
        await eventually(() => Promise.resolve(peerSide.readyCount(ready) === BURST), {
          timeoutMs: 900_000,
          intervalMs: 20,
          describe: () => `${peerSide.readyCount(ready)} of ${BURST} Ready`,
        });
        own = Math.max(...(await Promise.all(ready.map((k) => peerSide.readyAt(k)))));
      }
      const answered = Math.max(...(await Promise.all(keys.map((k) => answerOf(k)))));
      if (side === 'svc') await Promise.all(names.map(dropOurs));
      else await Promise.all(names.map((n) => peerSide.delete(PEER.core, 'sandboxes', n)));
      return { answer: (answered - t0) / 1000, own: (own - t0) / 1000 };
    };
    const svcBurst = BURST > 0 ? await burst('svc') : undefined;
    if (svcBurst)
      console.log(
        `svc burst of ${BURST}: all answered after ${svcBurst.answer.toFixed(1)} s (all Running ${svcBurst.own.toFixed(1)} s)`,
      );
    const peerBurst = BURST > 0 ? await burst('peer') : undefined;
    if (peerBurst)
      console.log(
        `peer burst of ${BURST}: all answered after ${peerBurst.answer.toFixed(1)} s (all Ready ${peerBurst.own.toFixed(1)} s)`,
      );

    const line = (what: string, xs: number[]) =>
      console.log(
        `${what.padEnd(44)} p50 ${median(xs).toFixed(0).padStart(6)} ms  p99 ${percentile(xs, 99).toFixed(0).padStart(6)} ms`,
      );
    for (const side of ['svc', 'peer'] as const) {
      line(
        `${side} cold: sandboxd's first answer`,
        cold[side].map((t) => t.answer),
      );
      line(
        `${side} cold: kubelet reports container running`,
        cold[side].map((t) => t.container),
      );
      line(
        `${side} cold: ${side === 'svc' ? 'status.phase Running' : 'Ready condition'}`,
        cold[side].map((t) => t.own),
      );
      line(`${side} warm: ${side === 'svc' ? 'status.phase Running' : 'claim Ready condition'}`, warm[side]);
    }
    const ratio = (a: number, b: number) => round(a / b, 2);
    const p50 = (xs: number[]) => round(median(xs), 1);
    const own = { svc: p50(cold.svc.map((t) => t.own)), peer: p50(cold.peer.map((t) => t.own)) };
    console.log(
      `each side's own "Running" (svc status.phase, peer Ready): ${JSON.stringify({ svc_cold_p50_ms: own.svc, peer_cold_p50_ms: own.peer, cold_ratio: ratio(own.svc, own.peer), svc_burst50_s: svcBurst && round(svcBurst.own, 1), peer_burst50_s: peerBurst && round(peerBurst.own, 1) })}`,
    );
    console.log(
      `load average (1 min) at each round's start: ${loads.join(', ')}; now ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const svcCold50 = median(cold.svc.map((t) => t.answer));
    const peerCold50 = median(cold.peer.map((t) => t.answer));
    console.log(
      JSON.stringify({
        bench: 'peer',
        cluster: 'real',
        svc_cold_p50_ms: round(svcCold50, 1),
        peer_cold_p50_ms: round(peerCold50, 1),
        cold_ratio: ratio(svcCold50, peerCold50),
        svc_warm_p50_ms: p50(warm.svc),
        peer_warm_p50_ms: p50(warm.peer),
        warm_ratio: ratio(median(warm.svc), median(warm.peer)),
        svc_burst50_s: svcBurst ? round(svcBurst.answer, 1) : null,
        peer_burst50_s: peerBurst ? round(peerBurst.answer, 1) : null,
        burst_ratio: svcBurst && peerBurst ? ratio(svcBurst.answer, peerBurst.answer) : null,
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
