// make bench-peer CLUSTER=real: our sandboxes beside kubernetes-sigs/agent-sandbox (hack/peer)
// on a real cluster of this machine (hack/cluster: kubelet, containerd, runc, svc-csi), svc
// installed by its chart. Both sides alternate in one run with the same payload: the peer's
// Pod spec is the one our operator made for our first sandbox (same image, same command,
// same init container), and both workspaces are 2Gi claims on `svc-local`. Cold (no pool),
// warm (a pool of 3 each) and a burst of BENCH_BURST (50) at once.
//
// "Running" is not the same observable on both sides: ours is status.phase Running (the
// operator's own check of sandboxd answered, then the status written), the peer's its Ready
// condition (its Pod Ready: the kubelet's readiness probe, every 2 s). The last JSON line
// (bench/peer-summary.ts) has both: the issue's keys time each side's own Running (what its
// users wait for), the `*_first_answer_*` keys one observable both share, sandboxd's first
// answer from the Pod's node (bench/first-answer.ts); the kubelet's report of the main
// container running is printed beside. Warm is each side's own: both Pods already answer.
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
import {
  PEER,
  PeerSide,
  blueprint,
  installPeerCrds,
  peerControllerArgs,
  removePeerObjects,
} from './peer-side.ts';
import { startRealCluster } from './real.ts';
import { Sight } from './sight.ts';
import { Tracer, burstTable } from './trace.ts';
import {
  cleanupFailed,
  fromTemplates,
  removePool,
  removeSandboxes,
  removeTemplates,
  Stopping,
} from './cleanup.ts';
import { peerSummary, type ColdTimes } from './peer-summary.ts';
import { createRetrying, median, percentile, poolFull } from './support.ts';

const N = Number(process.env.BENCH_RUNS ?? 20);
const BURST = Number(process.env.BENCH_BURST ?? 50);
const POOL = Number(process.env.BENCH_POOL ?? 3);
const SIZE = '2Gi';
const STORAGE_CLASS = 'svc-local';
const IMAGE = 'docker.io/library/debian:bookworm-slim';
const PEER_NS = 'peer-bench';
const TEMPLATES = ['peer-bench-cold', 'peer-bench-warm'];
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
  let peer: PeerSide | undefined;
  const sights: Sight[] = [];
  let prober: FirstAnswer | undefined;
  let controller: Managed | undefined;
  const tracers: { svc?: Tracer; peer?: Tracer } = {};
  const svcRef = { group: GROUP, version: VERSION };

  // Whatever the bench made goes on every way out (a cluster it brought up goes altogether),
  // sandboxes before what they are made from: ours, then our pool and templates; the peer's,
  // then its pool and template (bench/cleanup.ts says why), then its namespace and CRDs.
  const stopping = new Stopping();
  cluster.beforeClose(async () => {
    stopping.stop();
    for (const s of sights) s.stop();
    tracers.svc?.stop();
    tracers.peer?.stop();
    peer?.stop();
    prober?.stop();
    const ours = async () => {
      await removeSandboxes(kc, ns, fromTemplates(...TEMPLATES));
      await removePool(kc, ns, 'peer-bench');
      await removeTemplates(kc, TEMPLATES);
    };
    // The peer's objects while its controller still runs (it removes its own finalizers).
    const theirs = async () => {
      if (controller) await removePeerObjects(kc, PEER_NS);
      await core.deleteNamespace({ name: PEER_NS }).catch(() => undefined);
      await eventually(
        async () => (await core.readNamespace({ name: PEER_NS }).catch(() => undefined)) === undefined,
        { timeoutMs: 180_000, describe: () => `namespace ${PEER_NS} gone` },
      );
    };
    // A template is left when its sandboxes would not go (removing it would strand them).
    const [a, b] = await Promise.allSettled([ours(), theirs()]);
    for (const r of [a, b]) if (r.status === 'rejected') cleanupFailed()(r.reason);
    await controller?.stop();
    const ext = kc.makeApiClient(ApiextensionsV1Api);
    // By group, not by what the install returned: a signal may come while it runs.
    const peerCrds = (await ext.listCustomResourceDefinition().catch(() => ({ items: [] }))).items
      .filter((c) => c.spec.group === PEER.core || c.spec.group === PEER.ext)
      .map((c) => c.metadata!.name!);
    if (b.status === 'fulfilled')
      for (const name of peerCrds) await ext.deleteCustomResourceDefinition({ name }).catch(() => undefined);
    await rm(logs, { recursive: true, force: true });
    console.log(`bench-peer took ${((performance.now() - started) / 1000).toFixed(0)} s in all`);
  });

  try {
    await core.createNamespace({ body: { metadata: { name: PEER_NS } } });
    await installPeerCrds(kc, peerDir);
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
    // The bursts' trace (bench/trace.ts): each sandbox's objects, scheduling and containers
    // (containerd's events on the first node), both sides alike; the peer's objects are
    // known by their owning Sandbox.
    const containerd = join(cluster.state, cluster.nodes[0] ?? 'n1', 'containerd.sock');
    tracers.svc = await Tracer.open(kc, ns, containerd);
    tracers.peer = await Tracer.open(
      kc,
      PEER_NS,
      containerd,
      (o) => o.metadata?.ownerReferences?.find((r) => r.kind === 'Sandbox')?.name,
    );

    // Ours: a cold template and a warm one, the same image and workspace as the peer's.
    for (const name of TEMPLATES)
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
    const three = async (key: string, t0: number, own: number): Promise<ColdTimes> => {
      const answer = await answerOf(key);
      const container = seen.get(key)!.container;
      return {
        own: own - t0,
        container: container === undefined ? NaN : container - t0,
        answer: answer - t0,
      };
    };
    const svcCold = async (name: string, template = 'peer-bench-cold') => {
      seen.set(`svc/${name}`, { capMs: 20 });
      stopping.check();
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
      stopping.check();
      const t0 = performance.now();
      await peerSide.sandbox(name, plan);
      return three(`peer/${name}`, t0, await peerSide.readyAt(`sandboxes/${name}`, 180_000));
    };
    const svcWarm = async (name: string) => {
      stopping.check();
      const t0 = performance.now();
      await client.createSandbox({ name, templateRef: { name: 'peer-bench-warm' } });
      return (await runningAt(name)) - t0;
    };
    const peerWarm = async (name: string) => {
      stopping.check();
      const t0 = performance.now();
      await peerSide.claim(name, 'bench');
      return (await peerSide.readyAt(`sandboxclaims/${name}`, 180_000)) - t0;
    };
    const dropOurs = async (name: string) => {
      await client.deleteSandbox(name).catch(() => undefined);
    };
    await dropOurs('svc-first');

    const cold = { svc: [] as ColdTimes[], peer: [] as ColdTimes[] };
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
      const c = (t: ColdTimes) =>
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
      stopping.check();
      const tracer = tracers[side]!;
      const t0 = performance.now();
      let own: number;
      if (side === 'svc') {
        await Promise.all(
          names.map(async (name) => {
            await createRetrying(client, { name, templateRef: { name: 'peer-bench-cold' } });
            tracer.mark(name, 'created');
          }),
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
        await Promise.all(
          names.map(async (name) => {
            await peerSide.sandbox(name, plan);
            tracer.mark(name, 'created');
          }),
        );
        const ready = names.map((n) => `sandboxes/${n}`);
        await eventually(() => Promise.resolve(peerSide.readyCount(ready) === BURST), {
          timeoutMs: 900_000,
          intervalMs: 20,
          describe: () => `${peerSide.readyCount(ready)} of ${BURST} Ready`,
        });
        own = Math.max(...(await Promise.all(ready.map((k) => peerSide.readyAt(k)))));
      }
      const answers = await Promise.all(keys.map((k) => answerOf(k)));
      const answered = Math.max(...answers);
      for (const [i, name] of names.entries()) {
        tracer.mark(name, 'answer', answers[i]);
        tracer.mark(
          name,
          'running',
          side === 'svc' ? running.get(name) : await peerSide.readyAt(`sandboxes/${name}`),
        );
      }
      const steps = names.map((n) => tracer.steps(n, t0));
      if (side === 'svc') await Promise.all(names.map(dropOurs));
      else await Promise.all(names.map((n) => peerSide.delete(PEER.core, 'sandboxes', n)));
      return { answer: (answered - t0) / 1000, own: (own - t0) / 1000, trace: burstTable(steps) };
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

    if (svcBurst && peerBurst) printBurstTrace(svcBurst.trace, peerBurst.trace);

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
    console.log(
      `load average (1 min) at each round's start: ${loads.join(', ')}; now ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    // The issue's keys are each side's own Running; `*_first_answer_*` the point both share.
    console.log(
      JSON.stringify(peerSummary({ cold, warm, burst: { size: BURST, svc: svcBurst, peer: peerBurst } })),
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

/**
 * Where each side's burst spends its time: per step, when the median and the last sandbox
 * reached it (s from the burst's start) and how many were seen. The Pod sandbox's (pause)
 * task is matched as for one create at a time (bench/trace.ts), so in a burst it is only
 * roughly its own.
 */
function printBurstTrace(svc: ReturnType<typeof burstTable>, peer: ReturnType<typeof burstTable>): void {
  const s = (ms?: number) => (ms === undefined ? '—' : (ms / 1000).toFixed(1));
  console.log(
    `\nwhere each burst spends its time (s from the burst's start: median sandbox / last sandbox (seen)):`,
  );
  console.log(`${''.padEnd(54)}${'svc'.padEnd(20)}peer`);
  for (const [i, row] of svc.entries()) {
    const p = peer[i]!;
    if (row.n === 0 && p.n === 0) continue;
    console.log(
      `${row.label.padEnd(54)}${`${s(row.median)} / ${s(row.last)} (${row.n})`.padEnd(20)}${s(p.median)} / ${s(p.last)} (${p.n})`,
    );
  }
}
