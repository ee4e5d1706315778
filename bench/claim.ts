// make bench-claim: create → Running through the API, warm (a member of a SandboxWarmPool
// of 3, claimed) against cold (the same template without a pool), interleaved in one run.
// Each create is timed from POST /api/v1/sandboxes to the first Running a watch sees, and
// starts on a settled stack: the pool full, the previous pair deleted and gone.
import { CoreV1Api } from '@kubernetes/client-node';
import { GROUP, VERSION } from '../core/index.ts';
import { eventually } from '../stack/index.ts';
import { startStack } from './stack.ts';
import { createBenchTemplate, median, percentile, poolFull, round } from './support.ts';

const N = Number(process.env.BENCH_RUNS ?? 20);
const POOL = 3;
const NAMESPACE = 'bench';
const pools = { group: GROUP, version: VERSION, plural: 'sandboxwarmpools', namespace: NAMESPACE };
const sandboxes = { group: GROUP, version: VERSION, plural: 'sandboxes', namespace: NAMESPACE };

async function main(): Promise<void> {
  const stack = await startStack(NAMESPACE);
  const core = stack.kc.makeApiClient(CoreV1Api);
  let failed = false;
  try {
    // Two identical templates: the warm one has the pool, so the cold one's creates never claim.
    await createBenchTemplate(stack.kc, 'bench-warm', { storage: { size: '1Gi' } });
    await createBenchTemplate(stack.kc, 'bench-cold', { storage: { size: '1Gi' } });
    await stack.custom.createNamespacedCustomObject({
      ...pools,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'SandboxWarmPool',
        metadata: { name: 'bench' },
        spec: { templateRef: { name: 'bench-warm' }, mode: 'code', replicas: POOL },
      },
    });
    const full = () =>
      eventually(() => poolFull(stack.kc, NAMESPACE, 'bench', POOL), {
        timeoutMs: 120_000,
        intervalMs: 20,
        describe: () => 'the pool never refilled',
      });
    // Deleting a sandbox is work too (its finalizer, Pod and claim going, devnode stopping its
    // processes): the next create does not share the machine with the previous pair's.
    const settled = () =>
      eventually(
        async () => {
          const left = (await stack.custom.listNamespacedCustomObject(sandboxes)) as { items: unknown[] };
          const pods = await core.listNamespacedPod({ namespace: NAMESPACE });
          return left.items.length === 0 && pods.items.length === POOL;
        },
        { timeoutMs: 120_000, intervalMs: 20, describe: () => 'the deleted sandboxes never went' },
      );
    const time = async (name: string, template: string) => {
      const t0 = performance.now();
      const status = await stack.create({ name, templateRef: { name: template } });
      if (status !== 201) throw new Error(`create ${name} answered ${status}`);
      if (process.env.BENCH_DEBUG) console.log(name, 'POST', (performance.now() - t0).toFixed(1));
      const ms = (await stack.running(name)) - t0;
      const got = (await stack.custom.getNamespacedCustomObject({ ...sandboxes, name })) as {
        status?: { podName?: string };
      };
      return { ms, hit: got.status?.podName !== name };
    };
    // One of each first, not counted: the first reconciles pay for cold caches.
    await full();
    await time('warmup-warm', 'bench-warm');
    await time('warmup-cold', 'bench-cold');
    await stack.deleteSandbox('warmup-warm');
    await stack.deleteSandbox('warmup-cold');
    const warm: number[] = [];
    const cold: number[] = [];
    let hits = 0;
    for (let i = 0; i < N; i++) {
      await settled();
      await full();
      const w = await time(`warm-${i}`, 'bench-warm');
      warm.push(w.ms);
      if (w.hit) hits++;
      // The warm claim's refill runs after its Running: the cold create waits it out too.
      await full();
      const c = await time(`cold-${i}`, 'bench-cold');
      if (c.hit) throw new Error(`cold-${i} claimed a member`);
      cold.push(c.ms);
      // Not left running: the next pair runs on the same load as the first.
      await stack.deleteSandbox(`warm-${i}`);
      await stack.deleteSandbox(`cold-${i}`);
    }
    console.log(
      `create → Running through the API (${N} each, interleaved; pool of ${POOL} refilled before each create):`,
    );
    console.log(
      `  warm (claimed member): p50 ${median(warm).toFixed(1)} ms  p99 ${percentile(warm, 99).toFixed(1)} ms`,
    );
    console.log(
      `  cold (new Pod + claim): p50 ${median(cold).toFixed(1)} ms  p99 ${percentile(cold, 99).toFixed(1)} ms`,
    );
    console.log(`  hits ${hits}/${N}; cold / warm p50 = ${(median(cold) / median(warm)).toFixed(1)}x`);
    console.log(
      JSON.stringify({
        bench: 'claim',
        warm_p50_ms: round(median(warm), 1),
        warm_p99_ms: round(percentile(warm, 99), 1),
        cold_p50_ms: round(median(cold), 1),
        hit_rate: round(hits / N, 2),
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
