// make bench-scale CLUSTER=real: BENCH_SANDBOXES (100) sandboxes of the template `minimal`
// created at once through the public API on a real cluster of this machine (hack/cluster,
// NODES=2 by default, svc installed by its chart): how long until all run, what the
// operators asked of the apiserver for it and while nothing changes (their own
// svc_kube_requests_total, read through the apiserver's Pod proxy), and the memory of the
// operator, API and sandbox Pods from their cgroups on the nodes (no metrics-server here).
import { CoreV1Api, CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import { SvcClient } from '../clients/typescript/index.ts';
import { GROUP, Labels, SandboxPod, VERSION, type Sandbox } from '../core/index.ts';
import { eventually } from '../stack/index.ts';
import { cpuMillis, fits, operatorRequests, podMemory, type Requests } from './cluster-probe.ts';
import { cleanupFailed, removeSandboxes, removeTemplates } from './cleanup.ts';
import { startRealCluster } from './real.ts';
import { Sight } from './sight.ts';
import { createRetrying, median, percentile, round } from './support.ts';

const N = Number(process.env.BENCH_SANDBOXES ?? 100);
const STEADY_S = Number(process.env.BENCH_STEADY_SECONDS ?? 60);
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 900);
/**
 * The sandboxes' CPU request: by default `0`, in a copy of `minimal` (`scale-minimal`) that
 * differs in that alone. `minimal` asks 100m, and 100 of it want 10 cores, which two nodes
 * of a 2-core machine (all this machine has) do not have: the scheduler would leave most
 * Pending and the bench would time the scheduler's refusals. The bench measures the
 * orchestration of 100 sandboxes, not how many fit. `BENCH_CPU_REQUEST=keep`: `minimal`
 * itself (then the bench fails at once unless they fit); any other value: that request.
 */
const CPU_REQUEST =
  process.env.BENCH_CPU_REQUEST === 'keep' ? undefined : (process.env.BENCH_CPU_REQUEST ?? '0');
const SERVICE_NS = 'svc-system';
const started = performance.now();

const cluster = await startRealCluster(Number(process.env.NODES ?? 2));
const { kc, env } = cluster;
const ns = env.namespace;
const core = kc.makeApiClient(CoreV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);
const client = new SvcClient({ baseUrl: env.baseUrl, apiKey: env.keys.admin, namespace: ns });
const names = Array.from({ length: N }, (_, i) => `scale-${i}`);
const watches: Sight[] = [];
const svcRef = { group: GROUP, version: VERSION, plural: 'clustersandboxtemplates' };

cluster.beforeClose(async () => {
  for (const w of watches) w.stop();
  // Gone means the Sandboxes and their Pods (the Sandbox's finalizer is the operator's, once
  // its claim and Pod are deleted), so a cluster given by SVC_E2E_STATE is left as the bench
  // found it; and only then the template they are made from (bench/cleanup.ts).
  const mine = new Set(names);
  await removeSandboxes(kc, ns, (s) => mine.has(s.metadata.name!)).then(
    () => (CPU_REQUEST !== undefined ? removeTemplates(kc, ['scale-minimal']) : undefined),
    cleanupFailed('template scale-minimal left for them'),
  );
  console.log(`bench-scale took ${((performance.now() - started) / 1000).toFixed(0)} s in all`);
});

const mib = (bytes: number) => round(bytes / 2 ** 20, 1);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const servicePods = async (component: string) =>
  (
    await core.listNamespacedPod({
      namespace: SERVICE_NS,
      labelSelector: `app.kubernetes.io/component=${component}`,
    })
  ).items;
const memoryOf = async (pods: V1Pod[], container?: string) =>
  sum(await Promise.all(pods.map((p) => podMemory(cluster, p, container))));

try {
  let template = 'minimal';
  if (CPU_REQUEST !== undefined) {
    const minimal = (await custom.getClusterCustomObject({ ...svcRef, name: 'minimal' })) as {
      spec: { resources?: { requests?: Record<string, string> } };
    };
    const spec = structuredClone(minimal.spec);
    spec.resources = { ...spec.resources, requests: { ...spec.resources?.requests, cpu: CPU_REQUEST } };
    await custom.createClusterCustomObject({
      ...svcRef,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'ClusterSandboxTemplate',
        metadata: { name: 'scale-minimal' },
        spec,
      },
    });
    template = 'scale-minimal';
  }
  // Fail at once, saying what fits, rather than wait for Pods the scheduler cannot place.
  const tmpl = (await custom.getClusterCustomObject({ ...svcRef, name: template })) as {
    spec: { resources?: { requests?: { cpu?: string } } };
  };
  const room = await fits(core, Math.max(cpuMillis(tmpl.spec.resources?.requests?.cpu ?? '0'), 10));
  console.log(
    `${cluster.nodes.length} node(s); template ${template}` +
      (CPU_REQUEST === undefined
        ? ''
        : ` (minimal with its CPU request ${CPU_REQUEST}; BENCH_CPU_REQUEST=keep for minimal's own)`) +
      `; its sandboxes that fit by CPU request: ${room.fit} (${room.detail})`,
  );
  if (room.fit < N)
    throw new Error(
      `${N} sandboxes of ${template} do not fit: at most ${room.fit} (${room.detail}); BENCH_SANDBOXES=${room.fit}, or a smaller BENCH_CPU_REQUEST`,
    );

  const created = new Map<string, number>();
  const running = new Map<string, number>();
  const pods = new Map<string, { added: number; ready?: number }>();
  watches.push(
    await Sight.open(kc, `/api/v1/namespaces/${ns}/pods`, (_type, pod: V1Pod) => {
      const name = pod.metadata!.labels?.[Labels.sandbox];
      if (!name) return;
      const t = pods.get(name) ?? pods.set(name, { added: performance.now() }).get(name)!;
      if (pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
        t.ready ??= performance.now();
    }),
    await Sight.open(kc, `/apis/${GROUP}/${VERSION}/namespaces/${ns}/sandboxes`, (_type, s: Sandbox) => {
      if (s.status?.phase === 'Running' && !running.has(s.metadata.name!))
        running.set(s.metadata.name!, performance.now());
    }),
  );
  const [operators, apis] = [await servicePods('operator'), await servicePods('api')];
  const memBefore = { operator: await memoryOf(operators), api: await memoryOf(apis) };
  const before = await operatorRequests(core, operators);
  let retries = 0;
  const t0 = performance.now();
  await Promise.all(
    names.map(async (name) => {
      created.set(name, performance.now());
      retries += await createRetrying(client, { name, templateRef: { name: template } });
    }),
  );
  await eventually(
    () => {
      for (const w of watches) w.check();
      return Promise.resolve(running.size >= N);
    },
    {
      timeoutMs: TIMEOUT_S * 1000,
      intervalMs: 50,
      describe: () => `the watch saw ${running.size} of ${N} Running after ${TIMEOUT_S} s`,
    },
  );
  const allS = (performance.now() - t0) / 1000;
  const creation = await operatorRequests(core, operators);
  const times = names.map((n) => running.get(n)! - created.get(n)!);
  console.log(
    `${N} sandboxes created at once: all Running after ${allS.toFixed(1)} s (${retries} create(s) retried after a 503)`,
  );
  console.log(
    `create → Running: p50 ${median(times).toFixed(0)} ms  p99 ${percentile(times, 99).toFixed(0)} ms`,
  );
  const p50 = (xs: number[]) => (xs.length > 0 ? median(xs).toFixed(0) : '-');
  const toPod = names.flatMap((n) => (pods.get(n) ? [pods.get(n)!.added - created.get(n)!] : []));
  const toReady = names.flatMap((n) =>
    pods.get(n)?.ready ? [pods.get(n)!.ready! - pods.get(n)!.added] : [],
  );
  console.log(`p50: create → Pod ${p50(toPod)} ms, Pod → Ready ${p50(toReady)} ms`);
  // A figure across an operator's restart would count from 0 again: none rather than a wrong one.
  const across = (a: Requests, b: Requests, what: string) => {
    if (a.restarts === b.restarts) return true;
    console.error(
      `an operator restarted ${b.restarts - a.restarts} time(s) during ${what} (its request counters started again from 0): no figure for it`,
    );
    process.exitCode = 1;
    return false;
  };
  const perSandbox = across(before, creation, 'the burst') ? (creation.total - before.total) / N : NaN;
  console.log(`operator requests until all Running: ${perSandbox.toFixed(2)} per sandbox (Lease excluded)`);
  console.log(JSON.stringify(diff(before, creation)));

  // Steady state: every sandbox Running, nothing changing; what the operators ask now is polling.
  await new Promise((r) => setTimeout(r, 5_000));
  const settled = await operatorRequests(core, operators);
  await new Promise((r) => setTimeout(r, STEADY_S * 1000));
  const steady = await operatorRequests(core, operators);
  for (const w of watches) w.check();
  const perMin = across(settled, steady, 'the steady state')
    ? ((steady.total - settled.total) * 60) / STEADY_S
    : NaN;
  console.log(`steady state over ${STEADY_S} s: ${perMin.toFixed(1)} operator requests/min (Lease excluded)`);
  if (steady.total > settled.total) console.log(JSON.stringify(diff(settled, steady)));

  // Memory: each Pod's working set from its cgroup on its node (usage less inactive file pages).
  const sandboxPods = (await core.listNamespacedPod({ namespace: ns, labelSelector: Labels.sandbox })).items;
  const memAfter = { operator: await memoryOf(operators), api: await memoryOf(apis) };
  const sandboxd = await memoryOf(sandboxPods, SandboxPod.container);
  const wholePods = await memoryOf(sandboxPods);
  const per100 = (bytes: number) => mib((bytes * 100) / sandboxPods.length);
  console.log(
    `memory (working set): operators ${mib(memBefore.operator)} → ${mib(memAfter.operator)} MiB, APIs ${mib(memBefore.api)} → ${mib(memAfter.api)} MiB (${operators.length} and ${apis.length} Pods); ` +
      `per 100 sandboxes: sandboxd containers ${per100(sandboxd)} MiB, whole sandbox Pods ${per100(wholePods)} MiB`,
  );
  console.log(
    JSON.stringify({
      bench: 'scale',
      cluster: 'real',
      n: N,
      nodes: cluster.nodes.length,
      template,
      cpu_request: tmpl.spec.resources?.requests?.cpu ?? '0',
      all_running_s: round(allS, 1),
      p50_ms: Math.round(median(times)),
      p99_ms: Math.round(percentile(times, 99)),
      operator_requests_per_sandbox: Number.isNaN(perSandbox) ? null : round(perSandbox, 2),
      steady_requests_per_min: Number.isNaN(perMin) ? null : round(perMin, 1),
      operator_mib: mib(memAfter.operator),
      // A restarted operator's memory started again too: its growth is no figure then.
      operator_mib_per_100:
        before.restarts === steady.restarts
          ? mib(((memAfter.operator - memBefore.operator) * 100) / N)
          : null,
      api_mib: mib(memAfter.api),
      api_mib_per_100: mib(((memAfter.api - memBefore.api) * 100) / N),
      sandboxd_mib_per_100: per100(sandboxd),
    }),
  );
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await cluster.close();
}

function diff(a: Requests, b: Requests): Record<string, number> {
  return Object.fromEntries(
    Object.entries(b.byVerb)
      .map(([k, v]) => [k, v - (a.byVerb[k] ?? 0)] as const)
      .filter(([, v]) => v > 0),
  );
}
