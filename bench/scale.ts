// make bench-scale: 100 sandboxes (template `minimal`) created at once on devnode; how long
// until all run, and what the operator asked of the apiserver for it (creation) and while
// nothing changes (steady state), from its own svc_kube_requests_total.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { GROUP, VERSION, type Sandbox } from '../core/index.ts';
import type { RunningOperator } from '../operator/index.ts';
import { startInProcess } from './inprocess.ts';
import { Sight } from './sight.ts';
import { median, percentile } from './support.ts';

const N = Number(process.env.BENCH_SANDBOXES ?? 100);
/** How long the steady state is watched (the figure is per minute either way). */
const STEADY_S = Number(process.env.BENCH_STEADY_SECONDS ?? 60);
/** How long the burst may take before the bench gives up. */
const TIMEOUT_S = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 600);
const root = join(import.meta.dirname, '..');
const { kc, custom, namespace, operator, close } = await startInProcess('scale');

/** The operator's requests so far, Lease renewals left out (they are leader election's). */
async function requests(op: RunningOperator): Promise<{ total: number; byVerb: Record<string, number> }> {
  const metric = await op.metrics.registry.getSingleMetric('svc_kube_requests_total')!.get();
  const byVerb: Record<string, number> = {};
  let total = 0;
  for (const v of metric.values) {
    if (v.labels.resource === 'leases') continue;
    const key = `${String(v.labels.verb)} ${String(v.labels.resource)}`;
    byVerb[key] = (byVerb[key] ?? 0) + v.value;
    total += v.value;
  }
  return { total, byVerb };
}

const diff = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(b)
      .map(([k, v]) => [k, v - (a[k] ?? 0)] as const)
      .filter(([, v]) => v > 0),
  );

try {
  // The sample `minimal` template, as an installation has it.
  const minimal = parse(
    await readFile(join(root, 'config/samples/clustersandboxtemplate-minimal.yaml'), 'utf8'),
  ) as object;
  await custom.createClusterCustomObject({
    group: GROUP,
    version: VERSION,
    plural: 'clustersandboxtemplates',
    body: minimal,
  });

  // Each sandbox's Running, from a watch (no polling load on the apiserver during the burst).
  const created = new Map<string, number>();
  const running = new Map<string, number>();
  const pods = new Map<string, { added: number; ready?: number }>();
  const podWatch = await Sight.open(kc, `/api/v1/namespaces/${namespace}/pods`, (_type, pod: V1Pod) => {
    const name = pod.metadata!.name!;
    const t = pods.get(name) ?? pods.set(name, { added: performance.now() }).get(name)!;
    if (pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      t.ready ??= performance.now();
  });
  let allRunning!: () => void;
  const done = new Promise<void>((resolve) => (allRunning = resolve));
  const watch = await Sight.open(
    kc,
    `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/sandboxes`,
    (_type, s: Sandbox) => {
      const name = s.metadata.name!;
      if (s.status?.phase === 'Running' && !running.has(name)) {
        running.set(name, performance.now());
        if (running.size === N) allRunning();
      }
    },
  );
  const before = await requests(operator);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: N }, async (_, i) => {
      const name = `s${i}`;
      created.set(name, performance.now());
      await custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'sandboxes',
        namespace,
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'Sandbox',
          metadata: { name },
          spec: { templateRef: { name: 'minimal' } },
        },
      });
    }),
  );
  // All Running, or the watch lost, or the time up: the last two fail, saying what the
  // apiserver itself lists, so "nothing Running" and "not seen" are told apart.
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>(
    (resolve) => (timer = setTimeout(() => resolve('timeout'), TIMEOUT_S * 1000)),
  );
  const ended = await Promise.race([done, watch.lost, podWatch.lost, timedOut]).catch((err: Error) => err);
  clearTimeout(timer);
  if (ended !== undefined) {
    const listed = (await custom.listNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: 'sandboxes',
    })) as { items: Sandbox[] };
    const listedRunning = listed.items.filter((s) => s.status?.phase === 'Running').length;
    const why = ended === 'timeout' ? `after ${TIMEOUT_S} s` : `: ${ended.message}`;
    throw new Error(
      `the watch saw ${running.size} of ${N} Running ${why}; the apiserver lists ${listedRunning} of ${listed.items.length} Running (the watch was reopened ${watch.reopened} times)`,
    );
  }
  const allS = (performance.now() - t0) / 1000;
  const creation = await requests(operator);
  const times = [...running].map(([name, at]) => at - created.get(name)!);
  console.log(`${N} sandboxes created at once: all Running after ${allS.toFixed(1)} s`);
  console.log(
    `create → Running: p50 ${median(times).toFixed(0)} ms  p99 ${percentile(times, 99).toFixed(0)} ms`,
  );
  const p50 = (xs: number[]) => (xs.length > 0 ? median(xs).toFixed(0) : '-');
  const names = [...running.keys()];
  // A sandbox's Pod carries its name unless a warm pool's member was claimed (none here).
  const toPod = names.flatMap((n) => (pods.get(n) ? [pods.get(n)!.added - created.get(n)!] : []));
  const toReady = names.flatMap((n) =>
    pods.get(n)?.ready ? [pods.get(n)!.ready! - pods.get(n)!.added] : [],
  );
  const readyToRunning = names.flatMap((n) =>
    pods.get(n)?.ready ? [running.get(n)! - pods.get(n)!.ready!] : [],
  );
  console.log(
    `p50: create → Pod ${p50(toPod)} ms, Pod → Ready ${p50(toReady)} ms, Ready → Running ${p50(readyToRunning)} ms`,
  );
  podWatch.stop();
  const perSandbox = (creation.total - before.total) / N;
  console.log(`operator requests until all Running: ${perSandbox.toFixed(2)} per sandbox`);
  console.log(JSON.stringify(diff(before.byVerb, creation.byVerb)));

  // Steady state: every sandbox Running, nothing changing; whatever the operator asks now
  // is polling. A few seconds first, for the passes the last Running status set off.
  await new Promise((r) => setTimeout(r, 5_000));
  const settled = await requests(operator);
  await new Promise((r) => setTimeout(r, STEADY_S * 1000));
  const steady = await requests(operator);
  const perMin = ((steady.total - settled.total) * 60) / STEADY_S;
  console.log(`steady state over ${STEADY_S} s: ${perMin.toFixed(1)} operator requests/min (Lease excluded)`);
  const steadyByVerb = diff(settled.byVerb, steady.byVerb);
  if (Object.keys(steadyByVerb).length > 0) console.log(JSON.stringify(steadyByVerb));
  watch.check();
  watch.stop();
  if (watch.reopened + podWatch.reopened > 0)
    console.log(`watches reopened: sandboxes ${watch.reopened}, pods ${podWatch.reopened}`);
  console.log(
    JSON.stringify({
      bench: 'scale',
      n: N,
      all_running_s: Number(allS.toFixed(1)),
      p50_ms: Math.round(median(times)),
      p99_ms: Math.round(percentile(times, 99)),
      operator_requests_per_sandbox: Number(perSandbox.toFixed(2)),
      steady_requests_per_min: Number(perMin.toFixed(1)),
    }),
  );
} finally {
  await close();
}
