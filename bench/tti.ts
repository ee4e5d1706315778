// make bench-tti: time to first output, as ComputeSDK measures the hosted services. Through the
// public API with the TypeScript client, as a user's program would: create a sandbox, wait
// for Running (the client's watch of sandboxes), run `echo hi` (exec, streamed), and stop the
// clock at its first output. Cold (a template without a pool) and warm (a pool's member
// claimed), one after another and in bursts, on devnode and, with CLUSTER=real, on a real
// cluster too (hack/cluster, svc installed by its chart), printed side by side.
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { EventStream, SvcClient, type WatchEvents } from '../clients/typescript/index.ts';
import { GROUP, VERSION } from '../core/index.ts';
import { eventually } from '../stack/index.ts';
import {
  cleanupFailed,
  fromTemplates,
  removePool,
  removeSandboxes,
  removeTemplates,
  Stopping,
} from './cleanup.ts';
import { startStack } from './stack.ts';
import { checkPoolRoom, waitPoolFull } from './pool-fill.ts';
import { median, percentile, round } from './support.ts';
import { Tracer, traceTable, type Step } from './trace.ts';
import { realCluster } from './tti-real.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const BURST = Number(process.env.BENCH_BURST ?? 20);
const POOL = 3;
const TEMPLATES = ['tti-warm', 'tti-cold'];
const TIMEOUT_MS = 120_000;

/** A cluster with svc on it, reached as a client reaches it. */
export interface Side {
  cluster: 'devnode' | 'real';
  client: SvcClient;
  /** An admin kubeconfig: the bench's templates and pool, and the trace's watches. */
  kc: KubeConfig;
  namespace: string;
  /** A node's containerd socket (real): its events time the containers in the trace. */
  containerd?: string;
  /** A step to run before the side goes on every way out, a signal's too (real). */
  beforeClose?(step: () => Promise<void>): void;
  close(failed: boolean): Promise<void>;
}

interface Figures {
  cluster: string;
  warm: number[];
  cold: number[];
  burstWarm: number[];
  burstCold: number[];
  attempts: { warm: number; cold: number; all: number };
  trace: ReturnType<typeof traceTable>;
  /** The sequential warm creates' steps (those a claim has: see WARM_STEPS). */
  warmTrace: ReturnType<typeof traceTable>;
}

/** A warm create's steps: the member's Pod shows under the sandbox's label once claimed. */
const WARM_STEPS: Partial<Record<Step, string>> = {
  created: 'POST /sandboxes answered 201',
  sandbox: 'Sandbox seen (watch)',
  pod: "member's Pod claimed (relabelled)",
  running: "Sandbox Running (svc's status, client's watch)",
  secret: "member's Secret moved (after Running)",
  policy: "member's NetworkPolicy moved (after Running)",
  output: 'first output of `echo hi` (exec)',
};

/**
 * The bench's templates: the sample `minimal` (bookworm-slim, 1Gi workspace, no egress), with
 * small requests so a pool of BURST members fits on one 2-core node beside svc.
 */
const templateSpec = {
  image: 'docker.io/library/debian:bookworm-slim',
  resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
  storage: { size: '1Gi' },
  network: { egress: 'none' },
};

/** One create → first output; undefined (and said why) when it failed. */
async function firstOutput(
  side: Side,
  watch: RunningWatch,
  tracer: Tracer,
  name: string,
  template: string,
): Promise<number | undefined> {
  const t0 = performance.now();
  const running = watch.running(name);
  // A create that failed never awaits it: its timeout must not end the bench.
  running.catch(() => undefined);
  try {
    await side.client.createSandbox({ name, templateRef: { name: template } });
    tracer.mark(name, 'created');
    await running;
    tracer.mark(name, 'running');
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), TIMEOUT_MS);
    try {
      const stream = await side.client.execSandboxStream(
        name,
        { command: ['echo', 'hi'] },
        { signal: ctrl.signal },
      );
      for await (const ev of stream) {
        if (ev.event === 'log' && ev.data.data.includes('hi')) {
          tracer.mark(name, 'output');
          return performance.now() - t0;
        }
        if (ev.event === 'exit' || ev.event === 'error')
          throw new Error(`${ev.event} before output: ${JSON.stringify(ev.data)}`);
      }
      throw new Error('the exec ended without output');
    } finally {
      clearTimeout(timer);
    }
  } catch (err) {
    console.error(`${side.cluster} ${name}: ${(err as Error).message}`);
    return undefined;
  } finally {
    watch.forget(name);
  }
}

/** The client's watch of sandboxes (GET /sandboxes?watch=true): when each is first Running. */
class RunningWatch {
  readonly #seen = new Set<string>();
  readonly #waiters = new Map<string, { seen: () => void; timer: NodeJS.Timeout }>();
  #lost: Error | undefined;
  #stopped = false;
  #close: () => Promise<void> = () => Promise.resolve();

  /**
   * The watch is the client's own request (`client.raw`, as `watchSandboxes` makes it), its
   * body read here, so that `stop` cancels that body and the connection closes. An AbortSignal
   * would not do it reliably: fetch follows the signal through the Request openapi-fetch
   * builds, by a weak reference that is lost once that Request is collected
   * (nodejs/node#55428); after a burst's garbage, aborting no longer closed the watch, and its
   * socket kept the bench's process alive after its last line.
   */
  static async open(client: SvcClient, namespace: string): Promise<RunningWatch> {
    const w = new RunningWatch();
    const { response } = await client.raw.GET('/sandboxes', {
      params: { query: { namespace, watch: 'true' } },
      headers: { accept: 'text/event-stream' },
      parseAs: 'stream',
    });
    if (!response.ok || !response.body)
      throw new Error(`the watch of sandboxes answered ${response.status}: ${await response.text()}`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    w.#close = () => reader.cancel().catch(() => undefined);
    const body = new ReadableStream<Uint8Array>({
      pull: async (c) => {
        const chunk = await reader.read();
        if (chunk.done) c.close();
        else c.enqueue(chunk.value);
      },
    });
    const stream = new EventStream<WatchEvents>(body, ['added', 'modified', 'deleted']);
    void (async () => {
      try {
        for await (const ev of stream) {
          if (ev.event === 'deleted' || ev.data.status?.phase !== 'Running') continue;
          w.#seen.add(ev.data.name);
          w.#waiters.get(ev.data.name)?.seen();
        }
        w.#lost = new Error('the API ended the watch of sandboxes');
      } catch (err) {
        w.#lost = err as Error;
      }
    })();
    return w;
  }

  running(name: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.#seen.has(name)) return resolve();
      const timer = setTimeout(() => reject(new Error(`not Running after ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      this.#waiters.set(name, {
        timer,
        seen: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  forget(name: string): void {
    clearTimeout(this.#waiters.get(name)?.timer);
    this.#waiters.delete(name);
  }

  /** Throws once the watch ended: a bench that lost sight must fail, not wait. */
  check(): void {
    if (this.#lost && !this.#stopped) throw new Error(`lost sight of sandboxes: ${this.#lost.message}`);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#close();
  }
}

async function measure(side: Side): Promise<Figures> {
  const custom = side.kc.makeApiClient(CustomObjectsApi);
  const ns = side.namespace;
  const pools = { group: GROUP, version: VERSION, plural: 'sandboxwarmpools', namespace: ns };
  const sandboxes = { group: GROUP, version: VERSION, plural: 'sandboxes', namespace: ns };
  const templates = { group: GROUP, version: VERSION, plural: 'clustersandboxtemplates' };
  for (const name of TEMPLATES)
    await custom.createClusterCustomObject({
      ...templates,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'ClusterSandboxTemplate',
        metadata: { name },
        spec: templateSpec,
      },
    });
  const watch = await RunningWatch.open(side.client, ns);
  const tracer = await Tracer.open(side.kc, ns, side.containerd);
  // A cluster kept up (SVC_E2E_STATE) keeps nothing of the bench's, however the bench ends:
  // its sandboxes gone first, then the pool and the templates they are made from
  // (bench/cleanup.ts). Once, from the `finally` below or from a signal.
  const stopping = new Stopping();
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      stopping.stop();
      await watch.stop();
      tracer.stop();
      try {
        await removeSandboxes(side.kc, ns, fromTemplates(...TEMPLATES));
      } catch (err) {
        cleanupFailed('the templates are left for them')(err);
        return;
      }
      await removePool(side.kc, ns, 'tti', side.cluster === 'real' ? 300_000 : 0);
      await removeTemplates(side.kc, TEMPLATES);
    })());
  side.beforeClose?.(cleanup);
  const setPool = (replicas: number) =>
    custom.patchNamespacedCustomObject(
      { ...pools, name: 'tti', body: [{ op: 'replace', path: '/spec/replicas', value: replicas }] },
      undefined,
    );
  try {
    await custom.createNamespacedCustomObject({
      ...pools,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'SandboxWarmPool',
        metadata: { name: 'tti' },
        spec: { templateRef: { name: 'tti-warm' }, mode: 'code', replicas: POOL },
      },
    });
    // A pool that cannot fill ends the bench at once with why (bench/pool-fill.ts): members
    // that do not fit the node, the pool's own cause, each member not ready.
    const full = (size: number) => waitPoolFull(side.kc, ns, 'tti', size, 300_000);
    // Each create starts with the previous ones gone (their Pods and claims too), so none
    // shares the node with a teardown.
    const gone = async (names: string[]) => {
      await Promise.all(
        names.map((name) =>
          custom.deleteNamespacedCustomObject({ ...sandboxes, name }).catch(() => undefined),
        ),
      );
      await eventually(
        async () => {
          const left = (await custom.listNamespacedCustomObject(sandboxes)) as {
            items: { metadata: { name: string } }[];
          };
          return !left.items.some((s) => names.includes(s.metadata.name));
        },
        { timeoutMs: 300_000, intervalMs: 50, describe: () => 'the deleted sandboxes never went' },
      );
    };
    const one = (name: string, template: string) => {
      stopping.check();
      watch.check();
      tracer.check();
      return firstOutput(side, watch, tracer, name, template);
    };
    // One of each first, not counted: the first reconciles pay for cold caches.
    await full(POOL);
    await one('tti-warmup-w', 'tti-warm');
    await one('tti-warmup-c', 'tti-cold');
    await gone(['tti-warmup-w', 'tti-warmup-c']);
    const f: Figures = {
      cluster: side.cluster,
      warm: [],
      cold: [],
      burstWarm: [],
      burstCold: [],
      attempts: { warm: 0, cold: 0, all: 0 },
      trace: [],
      warmTrace: [],
    };
    const traces: Partial<Record<Step, number>>[] = [];
    const warmTraces: Partial<Record<Step, number>>[] = [];
    for (let i = 0; i < RUNS; i++) {
      await full(POOL);
      const tw = performance.now();
      const w = await one(`tti-w-${i}`, 'tti-warm');
      if (w !== undefined) {
        f.warm.push(w);
        warmTraces.push(tracer.steps(`tti-w-${i}`, tw));
      }
      // The claim's refill is work on the node: the cold create waits it out.
      await full(POOL);
      const t0 = performance.now();
      const c = await one(`tti-c-${i}`, 'tti-cold');
      if (c !== undefined) {
        f.cold.push(c);
        const steps = tracer.steps(`tti-c-${i}`, t0);
        traces.push(steps);
        // Each run's own order of the steps the medians cannot pair (they are taken step by step).
        const at = (s: Step) => steps[s]?.toFixed(0) ?? '—';
        console.error(
          `${side.cluster} cold ${i}: claim bound ${at('bound')}, scheduled ${at('scheduled')}, IP ${at('podIP')}, ` +
            `main started ${at('mainStart')}, kubelet says running ${at('mainRunning')}, Running ${at('running')}, output ${at('output')}`,
        );
      }
      await gone([`tti-w-${i}`, `tti-c-${i}`]);
      if ((i + 1) % 10 === 0) console.error(`${side.cluster}: ${i + 1}/${RUNS} rounds`);
    }
    f.trace = traceTable(traces);
    f.warmTrace = traceTable(warmTraces).filter((row) => WARM_STEPS[row.step]);
    // Said now too: a burst that fails later does not take these with it.
    console.error(
      `${side.cluster}: sequential warm ${stats(f.warm)}, cold ${stats(f.cold)} (median / p95 / p99 ms)`,
    );
    for (const row of f.trace) console.error(`  ${row.label}: ${row.ms?.toFixed(0) ?? '—'}`);
    console.error(`${side.cluster}: warm creates' steps (median ms from the create's call):`);
    for (const row of f.warmTrace) console.error(`  ${WARM_STEPS[row.step]}: ${row.ms?.toFixed(0) ?? '—'}`);
    // The bursts: BURST at once, warm from a pool of BURST, then cold (the pool back to POOL).
    const burst = async (prefix: string, template: string) => {
      const names = Array.from({ length: BURST }, (_, i) => `${prefix}-${i}`);
      const got = await Promise.all(names.map((n) => one(n, template)));
      await gone(names);
      return got.flatMap((x) => (x === undefined ? [] : [x]));
    };
    if (BURST > 0) {
      // Members that cannot fit the node would only show as the scheduler's refusals: said
      // before scaling (devnode has no scheduler and places every Pod).
      if (side.cluster === 'real') await checkPoolRoom(side.kc, ns, 'tti', BURST);
      await setPool(BURST);
      await full(BURST);
      f.burstWarm = await burst('tti-bw', 'tti-warm');
      await setPool(POOL);
      await full(POOL);
      f.burstCold = await burst('tti-bc', 'tti-cold');
    }
    f.attempts = { warm: RUNS + BURST, cold: RUNS + BURST, all: 2 * (RUNS + BURST) };
    return f;
  } finally {
    await cleanup();
  }
}

/** ComputeSDK's composite: 60 % median, 25 % p95, 15 % p99, times the success rate. */
const composite = (xs: number[], rate: number) =>
  xs.length === 0 ? 0 : (0.6 * median(xs) + 0.25 * percentile(xs, 95) + 0.15 * percentile(xs, 99)) * rate;

const stats = (xs: number[]) =>
  xs.length === 0
    ? '—'
    : `${median(xs).toFixed(0)} / ${percentile(xs, 95).toFixed(0)} / ${percentile(xs, 99).toFixed(0)} (${xs.length})`;

async function onSide(open: () => Promise<Side>): Promise<Figures> {
  const side = await open();
  let failed = false;
  try {
    return await measure(side);
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    await side.close(failed);
  }
}

async function devnode(): Promise<Side> {
  const stack = await startStack('tti');
  return {
    cluster: 'devnode',
    client: new SvcClient({ baseUrl: stack.base, apiKey: stack.key, namespace: 'tti' }),
    kc: stack.kc,
    namespace: 'tti',
    close: (failed) => stack.close(failed),
  };
}

const real = process.env.CLUSTER === 'real';
// BENCH_DEVNODE=0 leaves devnode's side out (a real cluster's figures alone).
const results: Figures[] = process.env.BENCH_DEVNODE === '0' ? [] : [await onSide(devnode)];
if (real) results.push(await onSide(realCluster));

console.log(
  `\ntime to first output (ms, median / p95 / p99 (successes)); ${RUNS} sequential runs, bursts of ${BURST}:`,
);
const pad = (s: string, n: number) => s.padEnd(n);
console.log(pad('', 26) + results.map((r) => pad(r.cluster, 28)).join(''));
for (const [label, key] of [
  ['warm, one at a time', 'warm'],
  ['cold, one at a time', 'cold'],
  [`warm, ${BURST} at once`, 'burstWarm'],
  [`cold, ${BURST} at once`, 'burstCold'],
] as const)
  console.log(pad(label, 26) + results.map((r) => pad(stats(r[key]), 28)).join(''));
console.log(`\nwhere a cold create spends its time (median ms from the create's call, ${RUNS} runs):`);
console.log(pad('', 52) + results.map((r) => pad(r.cluster, 10)).join(''));
for (const [i, row] of (results[0]?.trace ?? []).entries()) {
  const cells = results.map((r) => {
    const ms = r.trace[i]?.ms;
    return pad(ms === undefined ? '—' : ms.toFixed(0), 10);
  });
  console.log(pad(row.label, 52) + cells.join(''));
}
console.log(`\nwhere a warm create spends its time (median ms from the create's call, ${RUNS} runs):`);
for (const [i, row] of (results[0]?.warmTrace ?? []).entries()) {
  const cells = results.map((r) => pad(r.warmTrace[i]?.ms?.toFixed(0) ?? '—', 10));
  console.log(pad(WARM_STEPS[row.step] ?? row.label, 52) + cells.join(''));
}
for (const r of results) {
  const rate = (r.warm.length + r.cold.length + r.burstWarm.length + r.burstCold.length) / r.attempts.all;
  const warmRate = (r.warm.length + r.burstWarm.length) / r.attempts.warm;
  const coldRate = (r.cold.length + r.burstCold.length) / r.attempts.cold;
  // p50 is the median (the upper middle of an even count), as in the other benches.
  const p = (xs: number[], q: number) =>
    xs.length === 0 ? null : round(q === 50 ? median(xs) : percentile(xs, q), 1);
  console.log(
    JSON.stringify({
      bench: 'tti',
      cluster: r.cluster,
      warm_p50_ms: p(r.warm, 50),
      warm_p95_ms: p(r.warm, 95),
      warm_p99_ms: p(r.warm, 99),
      cold_p50_ms: p(r.cold, 50),
      cold_p99_ms: p(r.cold, 99),
      burst_warm_p50_ms: p(r.burstWarm, 50),
      composite_warm: round(composite(r.warm, warmRate), 1),
      composite_cold: round(composite(r.cold, coldRate), 1),
      success_rate: round(rate, 3),
    }),
  );
}
