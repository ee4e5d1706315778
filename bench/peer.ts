// make bench-peer: our sandboxes beside kubernetes-sigs/agent-sandbox (hack/peer), on one
// control plane and one devnode, interleaved: our cold create, the peer's cold Sandbox with
// the same payload (our sandboxd, a 2Gi claim), our warm claim and the peer's SandboxClaim
// from a warm pool of 3. Ours: POST /api/v1/sandboxes → status.phase Running; the peer's:
// create → its Ready condition True (see bench/README.md for how the two differ).
import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiextensionsV1Api, CoreV1Api, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { GROUP, VERSION, type Sandbox } from '../core/index.ts';
import { sandboxPod } from '../operator/manifests/index.ts';
import { freePort, waitFor } from '../test/controlplane/index.ts';
import { Sight } from './sight.ts';
import { startStack } from './stack.ts';
import { benchOperatorSettings, createBenchTemplate, median, poolFull, round } from './support.ts';

const N = Number(process.env.BENCH_RUNS ?? 20);
const POOL = 3;
const NAMESPACE = 'bench';
const root = join(import.meta.dirname, '..');
const PEER = { core: 'agents.x-k8s.io', ext: 'extensions.agents.x-k8s.io', version: 'v1beta1' };

type Conditioned = {
  metadata?: {
    name?: string;
    deletionTimestamp?: unknown;
    ownerReferences?: { kind: string; name: string }[];
  };
  status?: { conditions?: { type: string; status: string }[]; readyReplicas?: number };
};
const ready = (o: Conditioned) =>
  o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

async function main(): Promise<void> {
  const peerDir = execFileSync('bash', [join(root, 'hack/peer/build.sh')], { encoding: 'utf8' }).trim();
  const stack = await startStack(NAMESPACE);
  let failed = false;
  try {
    const { kc, custom } = stack;
    const core = kc.makeApiClient(CoreV1Api);
    // The peer's CRDs as its module ships them, without the conversion webhook (none here).
    const ext = kc.makeApiClient(ApiextensionsV1Api);
    for (const file of (await readdir(join(peerDir, 'crds'))).filter((f) => f.endsWith('.yaml'))) {
      const crd = parse(await readFile(join(peerDir, 'crds', file), 'utf8')) as V1CustomResourceDefinition;
      crd.spec.conversion = { strategy: 'None' };
      await ext.createCustomResourceDefinition({ body: crd });
      await waitFor(
        async () =>
          (await ext.readCustomResourceDefinition({ name: crd.metadata!.name! })).status?.conditions?.some(
            (c) => c.type === 'Established' && c.status === 'True',
          ) ?? false,
        { timeoutMs: 30_000, describe: () => `${crd.metadata!.name} established` },
      );
    }
    process.env.KUBECONFIG = stack.kubeconfigPath;
    stack.start('peer', join(peerDir, 'agent-sandbox-controller'), [
      '--leader-elect=false',
      '--enable-webhook=false',
      '--extensions=true',
      `--metrics-bind-address=127.0.0.1:${await freePort()}`,
      `--health-probe-bind-address=127.0.0.1:${await freePort()}`,
    ]);

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
    const blueprint = {
      podTemplate: { spec: podSpec },
      volumeClaimTemplates: [
        {
          metadata: { name: 'workspace' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } },
        },
      ],
    };
    const peerRef = (group: string, plural: string) => ({
      group,
      version: PEER.version,
      namespace: NAMESPACE,
      plural,
    });
    await custom.createNamespacedCustomObject({
      ...peerRef(PEER.ext, 'sandboxtemplates'),
      body: {
        apiVersion: `${PEER.ext}/${PEER.version}`,
        kind: 'SandboxTemplate',
        metadata: { name: 'bench' },
        spec: blueprint,
      },
    });
    await custom.createNamespacedCustomObject({
      ...peerRef(PEER.ext, 'sandboxwarmpools'),
      body: {
        apiVersion: `${PEER.ext}/${PEER.version}`,
        kind: 'SandboxWarmPool',
        metadata: { name: 'bench' },
        spec: { replicas: POOL, sandboxTemplateRef: { name: 'bench' } },
      },
    });
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

    // The peer's objects: the first Ready each shows, from one watch per kind.
    const seen = new Map<string, number>();
    const watches = await Promise.all(
      [
        ['sandboxes', `/apis/${PEER.core}/${PEER.version}/namespaces/${NAMESPACE}/sandboxes`],
        ['sandboxclaims', `/apis/${PEER.ext}/${PEER.version}/namespaces/${NAMESPACE}/sandboxclaims`],
      ].map(([kind, path]) =>
        Sight.open(kc, path!, (_t, o: Conditioned) => {
          const key = `${kind}/${o.metadata?.name}`;
          if (ready(o) && !seen.has(key)) seen.set(key, performance.now());
        }),
      ),
    );
    const peerReady = (key: string) =>
      waitFor(
        () => {
          for (const w of watches) w.check();
          return Promise.resolve(seen.has(key));
        },
        {
          timeoutMs: 120_000,
          intervalMs: 2,
          describe: () => `${key} Ready`,
        },
      ).then(() => seen.get(key)!);
    // Full and still on both sides: the members themselves counted (a pool's status may
    // still show one a claim just took), every one Ready, none going.
    const peerPoolFull = async () => {
      const [pool, list] = await Promise.all([
        custom.getNamespacedCustomObject({
          ...peerRef(PEER.ext, 'sandboxwarmpools'),
          name: 'bench',
        }) as Promise<Conditioned>,
        custom.listNamespacedCustomObject(peerRef(PEER.core, 'sandboxes')) as Promise<{
          items: Conditioned[];
        }>,
      ]);
      const members = list.items.filter((s) =>
        s.metadata?.ownerReferences?.some((o) => o.kind === 'SandboxWarmPool' && o.name === 'bench'),
      );
      return (
        pool.status?.readyReplicas === POOL &&
        members.length === POOL &&
        members.every((s) => !s.metadata?.deletionTimestamp && ready(s))
      );
    };
    const poolsFull = () =>
      waitFor(async () => (await poolFull(kc, NAMESPACE, 'bench', POOL)) && (await peerPoolFull()), {
        timeoutMs: 180_000,
        intervalMs: 20,
        describe: () => 'the pools never refilled',
      });

    const svc = async (name: string, template: string) => {
      const t0 = performance.now();
      const status = await stack.create({ name, templateRef: { name: template } });
      if (status !== 201) throw new Error(`create ${name} answered ${status}`);
      return (await stack.running(name)) - t0;
    };
    const peerCold = async (name: string) => {
      const t0 = performance.now();
      await custom.createNamespacedCustomObject({
        ...peerRef(PEER.core, 'sandboxes'),
        body: {
          apiVersion: `${PEER.core}/${PEER.version}`,
          kind: 'Sandbox',
          metadata: { name },
          spec: blueprint,
        },
      });
      return (await peerReady(`sandboxes/${name}`)) - t0;
    };
    const peerWarm = async (name: string) => {
      const t0 = performance.now();
      await custom.createNamespacedCustomObject({
        ...peerRef(PEER.ext, 'sandboxclaims'),
        body: {
          apiVersion: `${PEER.ext}/${PEER.version}`,
          kind: 'SandboxClaim',
          metadata: { name },
          spec: { warmPoolRef: { name: 'bench' } },
        },
      });
      return (await peerReady(`sandboxclaims/${name}`)) - t0;
    };
    // No garbage collector here: what the peer made goes by hand (its Sandboxes' Pods and claims too).
    const peerCleanup = async () => {
      for (const plural of ['sandboxclaims']) {
        const list = (await custom.listNamespacedCustomObject(peerRef(PEER.ext, plural))) as {
          items: Conditioned[];
        };
        for (const o of list.items)
          await custom
            .deleteNamespacedCustomObject({ ...peerRef(PEER.ext, plural), name: o.metadata!.name! })
            .catch(() => undefined);
      }
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
    for (const w of watches) w.stop();
    await peerCleanup();
    const p = (xs: number[]) => round(median(xs), 1);
    console.log(
      JSON.stringify({
        bench: 'peer',
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
