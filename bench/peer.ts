// make bench-peer: our sandboxes beside kubernetes-sigs/agent-sandbox (hack/peer), on one
// control plane and one devnode, interleaved: our cold create, the peer's cold Sandbox with
// the same payload (our sandboxd, a 2Gi claim), our warm claim and the peer's SandboxClaim
// from a warm pool of 3. Ours: POST /api/v1/sandboxes → status.phase Running; the peer's:
// create → its Ready condition True (see bench/README.md for how the two differ).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { GROUP, VERSION, type Sandbox } from '../core/index.ts';
import { sandboxPod } from '../operator/manifests/index.ts';
import { eventually, freePort } from '../stack/index.ts';
import { PEER, PeerSide, blueprint, installPeerCrds, peerControllerArgs } from './peer-side.ts';
import { startStack } from './stack.ts';
import { benchOperatorSettings, createBenchTemplate, median, poolFull, round } from './support.ts';

const N = Number(process.env.BENCH_RUNS ?? 20);
const POOL = 3;
const NAMESPACE = 'bench';
const root = join(import.meta.dirname, '..');

async function main(): Promise<void> {
  const peerDir = execFileSync('bash', [join(root, 'hack/peer/build.sh')], { encoding: 'utf8' }).trim();
  const stack = await startStack(NAMESPACE);
  let failed = false;
  try {
    const { kc, custom } = stack;
    const core = kc.makeApiClient(CoreV1Api);
    await installPeerCrds(kc, peerDir);
    process.env.KUBECONFIG = stack.kubeconfigPath;
    stack.start(
      'peer',
      join(peerDir, 'agent-sandbox-controller'),
      peerControllerArgs(await freePort(), await freePort()),
    );

    // The same payload on both sides: our sandboxd in our Pod spec, a 2Gi workspace claim.
    await createBenchTemplate(kc, 'bench-warm', { storage: { size: '2Gi' } });
    await createBenchTemplate(kc, 'bench-cold', { storage: { size: '2Gi' } });
    await core.createNamespacedSecret({
      namespace: NAMESPACE,
      body: { metadata: { name: 'peer-sandboxd' }, stringData: { token: 'peer-bench-token-0123456789' } },
    });
    const standIn = {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'Sandbox',
      metadata: { name: 'peer', namespace: NAMESPACE, uid: 'peer' },
      spec: {
        mode: 'code',
        templateRef: { name: 'bench-cold', kind: 'ClusterSandboxTemplate' },
        stopped: false,
      },
    } as Sandbox;
    const podSpec = sandboxPod(
      standIn,
      { image: 'debian:bookworm', storage: { size: '2Gi' } },
      benchOperatorSettings,
    ).spec!;
    // The peer adds the claim's volume itself (named after its volumeClaimTemplate).
    podSpec.volumes = podSpec
      .volumes!.filter((v) => v.name !== 'workspace')
      .map((v) =>
        v.name === 'svc-token' ? { ...v, secret: { ...v.secret, secretName: 'peer-sandboxd' } } : v,
      );
    delete podSpec.hostname;
    const plan = blueprint(podSpec, '2Gi');
    const peer = await PeerSide.open(kc, NAMESPACE);
    await peer.template('bench', plan);
    await peer.pool('bench', 'bench', POOL);
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: NAMESPACE,
      plural: 'sandboxwarmpools',
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'SandboxWarmPool',
        metadata: { name: 'bench' },
        spec: { templateRef: { name: 'bench-warm' }, mode: 'code', replicas: POOL },
      },
    });

    const poolsFull = () =>
      eventually(
        async () => (await poolFull(kc, NAMESPACE, 'bench', POOL)) && (await peer.poolFull('bench', POOL)),
        {
          timeoutMs: 180_000,
          intervalMs: 20,
          describe: () => 'the pools never refilled',
        },
      );

    const svc = async (name: string, template: string) => {
      const t0 = performance.now();
      const status = await stack.create({ name, templateRef: { name: template } });
      if (status !== 201) throw new Error(`create ${name} answered ${status}`);
      return (await stack.running(name)) - t0;
    };
    const peerCold = async (name: string) => {
      const t0 = performance.now();
      await peer.sandbox(name, plan);
      return (await peer.readyAt(`sandboxes/${name}`)) - t0;
    };
    const peerWarm = async (name: string) => {
      const t0 = performance.now();
      await peer.claim(name, 'bench');
      return (await peer.readyAt(`sandboxclaims/${name}`)) - t0;
    };

    const out = {
      svcCold: [] as number[],
      peerCold: [] as number[],
      svcWarm: [] as number[],
      peerWarm: [] as number[],
    };
    await poolsFull();
    for (let i = -1; i < N; i++) {
      // Round -1 warms both sides up and is not counted.
      // Every create starts from the same state: both pools full, nothing refilling (a pool
      // refilling after the previous claim would slow whichever create came next).
      const afterFull = async (create: () => Promise<number>) => {
        await poolsFull();
        return create();
      };
      const r = {
        svcCold: await afterFull(() => svc(`cold-${i + 1}`, 'bench-cold')),
        peerCold: await afterFull(() => peerCold(`pcold-${i + 1}`)),
        svcWarm: await afterFull(() => svc(`warm-${i + 1}`, 'bench-warm')),
        peerWarm: await afterFull(() => peerWarm(`pwarm-${i + 1}`)),
      };
      if (i >= 0) for (const k of Object.keys(out) as (keyof typeof out)[]) out[k].push(r[k]);
      console.log(
        `round ${i + 1}: svc cold ${r.svcCold.toFixed(0)} ms, peer cold ${r.peerCold.toFixed(0)} ms, svc warm ${r.svcWarm.toFixed(0)} ms, peer warm ${r.peerWarm.toFixed(0)} ms`,
      );
    }
    peer.stop();
    // No garbage collector here: the peer's claims go by hand.
    await peer.deleteAll(PEER.ext, 'sandboxclaims');
    const p = (xs: number[]) => round(median(xs), 1);
    console.log(
      JSON.stringify({
        bench: 'peer',
        cluster: 'devnode',
        svc_cold_p50_ms: p(out.svcCold),
        peer_cold_p50_ms: p(out.peerCold),
        svc_warm_p50_ms: p(out.svcWarm),
        peer_warm_p50_ms: p(out.peerWarm),
        cold_ratio: round(median(out.svcCold) / median(out.peerCold), 2),
        warm_ratio: round(median(out.svcWarm) / median(out.peerWarm), 2),
      }),
    );
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    await stack.close(failed);
  }
}

await main();
