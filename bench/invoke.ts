// make bench-invoke: agent-mode invokes through the whole stack (HTTP API → sandboxd in a
// devnode Pod), each figure against a baseline measured in the same run. (1) The round trip
// of an invoke of `true` (POST /invoke until the response ends) against spawn('true') from
// this process. (2) Throughput of 50 invokes in flight. (3) 256 MiB of stdout as SSE `log`
// events through the API against the same command's stdout read from a plain pipe.
// The control plane, devnode, the operator and the API run as they do under `make dev`:
// the API, operator and devnode each as an `svc` process of their own (hack/dev.ts's way).
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api } from '@kubernetes/client-node';
import { ApiKeyStore } from '../api/index.ts';
import { nodeOptionsOf } from '../cmd/node-options.ts';
import { SandboxNamespaces, SseParser } from '../core/index.ts';
import { eventually, type Managed, startEnvironment, startManaged, startSvc } from '../stack/index.ts';
import { createBenchTemplate, directRun, fmt, mean, percentile, round, type Measured } from './support.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const WARMUP = 20;
const CONCURRENCY = 50;
const BATCH = 200;
/** A 429 in the concurrent batch is retried after this (not Retry-After's 5 s), and counted. */
const RETRY_429_MS = 25;
const MAX_429_RETRIES = 200;
const STREAM_BYTES = 256 * 1024 * 1024;
const STREAM_REPEATS = 3;
const MiB = 1024 * 1024;
// 80-byte text lines, as bench/sandboxd.ts streams (not /dev/zero: a NUL is six bytes in
// JSON, which would measure JSON escaping rather than streaming).
const STREAM_SCRIPT = `yes ${'x'.repeat(79)} | head -c ${STREAM_BYTES}\n`;
const SERVICE_NAMESPACE = 'svc-system';
const NAMESPACE = 'bench';
const TEMPLATE = 'bench-invoke';
const SANDBOX = 'bench';

const root = join(import.meta.dirname, '..');

async function main(): Promise<void> {
  const env = await startEnvironment();
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-invoke-'));
  const children: Managed[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY + 4 });
  let failed = false;
  try {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: SERVICE_NAMESPACE } } });
    await core.createNamespace({
      body: {
        metadata: { name: NAMESPACE, labels: { [SandboxNamespaces.label]: SandboxNamespaces.enabled } },
      },
    });
    await createBenchTemplate(kc, TEMPLATE, {
      storage: { size: '1Gi' },
      agent: { maxConcurrentInvokes: CONCURRENCY },
    });
    const { key } = await new ApiKeyStore({ kc, namespace: SERVICE_NAMESPACE }).create({ user: 'bench' });

    await mkdir(join(dir, 'logs'));
    const start = (name: string, args: string[]) =>
      children.push(
        startManaged(
          name,
          process.execPath,
          [
            ...nodeOptionsOf(name),
            join(root, 'cmd/svc.ts'),
            name,
            '--kubeconfig',
            env.kubeconfigPath,
            '--log-level',
            'warn',
            ...(name === 'devnode' ? [] : ['--devnode', 'true']),
            ...args,
          ],
          join(dir, 'logs', `${name}.log`),
        ),
      );
    start('devnode', ['--node-name', 'devnode-bench', '--data-dir', join(dir, 'devnode')]);
    start('operator', ['--service-namespace', SERVICE_NAMESPACE, '--sandboxd-image', 'svc:bench']);
    const served = await startSvc(
      [
        'api',
        ...['--kubeconfig', env.kubeconfigPath, '--log-level', 'warn', '--devnode', 'true'],
        ...['--listen', '127.0.0.1:0'],
        ...['--service-namespace', SERVICE_NAMESPACE, '--default-namespace', NAMESPACE],
        ...['--auth.devAuth', 'true'],
      ],
      { logPath: join(dir, 'logs', 'api.log'), nodeOptions: nodeOptionsOf('api') },
    );
    children.push(served);
    const api = new Api(served.url, key, agent);

    const t0 = performance.now();
    const made = await api.call('POST', '/api/v1/sandboxes', {
      name: SANDBOX,
      templateRef: { name: TEMPLATE },
      mode: 'agent',
    });
    if (made.status !== 201) throw new Error(`create answered ${made.status}: ${made.text}`);
    let phase: string | undefined;
    await eventually(
      async () => {
        const got = await api.call('GET', `/api/v1/sandboxes/${SANDBOX}`);
        phase = (JSON.parse(got.text) as { status?: { phase?: string } }).status?.phase;
        return phase === 'Running';
      },
      { timeoutMs: 120_000, intervalMs: 50, describe: () => `sandbox ${SANDBOX} Running (phase ${phase})` },
    );
    const createMs = performance.now() - t0;

    // First the do-nothing entrypoint, so both sides of (1) run the same program.
    const configureTrueMs = await api.configure(SANDBOX, ['true']);
    for (let i = 0; i < WARMUP; i++) {
      await api.invoke(SANDBOX, '');
      await directRun(['true']);
    }
    const apiMs: number[] = [];
    const insideMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await api.invoke(SANDBOX, '');
      apiMs.push(r.ms);
      insideMs.push(r.insideMs);
    }
    const directMs: number[] = [];
    for (let i = 0; i < RUNS; i++) directMs.push((await directRun(['true'])).ms);
    // Fork time grows with the parent's RSS, so the baseline's RSS is printed with it.
    const directRss = process.memoryUsage().rss;
    // Not a figure of the JSON line: the read of the same sandbox (authentication, owner
    // check, informer cache, HTTP), to split the invoke's overhead.
    const getMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      const got = await api.call('GET', `/api/v1/sandboxes/${SANDBOX}`);
      if (got.status !== 200) throw new Error(`GET answered ${got.status}: ${got.text}`);
      getMs.push(performance.now() - t);
    }

    // (2) CONCURRENCY invokes in flight until BATCH have finished (after one untimed batch
    // that opens the connections).
    await concurrent(api, CONCURRENCY);
    const batch = await concurrent(api, BATCH);
    const perS = BATCH / (batch.ms / 1000);

    // (3) The streaming entrypoint.
    const configureStreamMs = await api.configure(SANDBOX, ['sh', '/workspace/agent.sh']);
    const streamMbS: number[] = [];
    const pipeMbS: number[] = [];
    const streamEvents: number[] = [];
    const clientCpu: number[] = [];
    for (let i = 0; i < STREAM_REPEATS; i++) {
      const cpu0 = process.cpuUsage();
      const s = await api.invoke(SANDBOX, '');
      const cpu = process.cpuUsage(cpu0);
      clientCpu.push((cpu.user + cpu.system) / 1000 / s.ms);
      const p = await directRun(['sh', '-c', STREAM_SCRIPT]);
      for (const r of [s, p])
        if (r.bytes !== STREAM_BYTES) throw new Error(`streamed ${r.bytes} bytes, not ${STREAM_BYTES}`);
      streamMbS.push(s.bytes / MiB / (s.ms / 1000));
      pipeMbS.push(p.bytes / MiB / (p.ms / 1000));
      streamEvents.push(s.logEvents);
    }

    // Each invoke leaves an audit Event: count them, as they load the apiserver too.
    const reasons = new Map<string, number>();
    for (const e of (await core.listNamespacedEvent({ namespace: NAMESPACE })).items)
      reasons.set(e.reason ?? '', (reasons.get(e.reason ?? '') ?? 0) + 1);

    const p50 = percentile(apiMs, 50);
    const p99 = percentile(apiMs, 99);
    const directP50 = percentile(directMs, 50);
    const streamP50 = percentile(streamMbS, 50);
    const pipeP50 = percentile(pipeMbS, 50);
    const row = (name: string, xs: number[]) =>
      console.log(
        `${name.padEnd(26)}p50 ${fmt(percentile(xs, 50))} ms  p90 ${fmt(percentile(xs, 90))} ms  p99 ${fmt(percentile(xs, 99))} ms  max ${fmt(Math.max(...xs))} ms`,
      );
    console.log(
      `${'create → Running'.padEnd(26)}${fmt(createMs)} ms;  configure ${fmt(configureTrueMs)} ms, reconfigure ${fmt(configureStreamMs)} ms`,
    );
    row(`API invoke 'true'`, apiMs);
    row(`spawn('true')`, directMs);
    row(`GET /sandboxes/{id}`, getMs);
    console.log(`${'overhead'.padEnd(26)}p50 ${fmt(p50 - directP50)} ms  (${RUNS} runs each)`);
    console.log(
      `${'  of which in sandboxd'.padEnd(26)}mean ${fmt(mean(insideMs))} ms spawn→close (the exit event's durationMs)`,
    );
    console.log(
      `${`${CONCURRENCY} in flight`.padEnd(26)}${BATCH} invokes in ${fmt(batch.ms)} ms: ${perS.toFixed(1)}/s  ` +
        `(p50 ${fmt(percentile(batch.times, 50))} ms, p99 ${fmt(percentile(batch.times, 99))} ms each; ${batch.throttled} answered 429)`,
    );
    console.log(
      `${'API SSE stream'.padEnd(26)}${streamMbS.map((x) => x.toFixed(0)).join(' / ')} MiB/s  ` +
        `(median ${streamP50.toFixed(0)}, ${Math.round(percentile(streamEvents, 50))} log events per 256 MiB)`,
    );
    console.log(
      `${'plain pipe'.padEnd(26)}${pipeMbS.map((x) => x.toFixed(0)).join(' / ')} MiB/s  (median ${pipeP50.toFixed(0)})`,
    );
    console.log(
      `${'Events in the namespace'.padEnd(26)}${[...reasons].map(([r, n]) => `${r} ${n}`).join(', ')}`,
    );
    console.log(`${'stream ratio'.padEnd(26)}${(streamP50 / pipeP50).toFixed(2)}`);
    console.log(
      `${'bench process'.padEnd(26)}RSS ${(directRss / MiB).toFixed(0)} MiB during spawn('true'); ` +
        `${(percentile(clientCpu, 50) * 100).toFixed(0)} % of a core parsing the API stream`,
    );
    console.log(
      JSON.stringify({
        bench: 'invoke',
        p50_ms: round(p50, 3),
        p99_ms: round(p99, 3),
        direct_p50_ms: round(directP50, 3),
        overhead_p50_ms: round(p50 - directP50, 3),
        concurrent_per_s: round(perS, 1),
        stream_ratio: round(streamP50 / pipeP50, 3),
      }),
    );
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    agent.destroy();
    // The API first, devnode last: on SIGTERM it stops its Pods and unmounts their roots.
    for (const c of children.reverse()) await c.stop(c.name === 'devnode' ? 60_000 : 10_000);
    if (failed) await printLogs(join(dir, 'logs'), children);
    await env.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The API over HTTP/1.1 with keep-alive, as a client library would hold it. */
class Api {
  readonly base: string;
  readonly key: string;
  readonly agent: Agent;
  constructor(base: string, key: string, agent: Agent) {
    this.base = base;
    this.key = key;
    this.agent = agent;
  }

  send(method: string, path: string, body?: string, accept = 'application/json'): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.base}${path}${path.startsWith('/api/') ? `?namespace=${NAMESPACE}` : ''}`,
        {
          method,
          agent: this.agent,
          headers: {
            'x-api-key': this.key,
            accept,
            ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }),
          },
        },
        resolve,
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  async call(method: string, path: string, json?: unknown): Promise<{ status: number; text: string }> {
    const res = await this.send(method, path, json === undefined ? undefined : JSON.stringify(json));
    return { status: res.statusCode ?? 0, text: await text(res) };
  }

  /** Configure with the streaming script as the one file; resolves at the `result` event. */
  async configure(name: string, entrypoint: string[]): Promise<number> {
    const t0 = performance.now();
    const body = JSON.stringify({
      files: [{ path: '/workspace/agent.sh', content: STREAM_SCRIPT }],
      entrypoint,
    });
    const res = await this.send('POST', `/api/v1/sandboxes/${name}/configure`, body, 'text/event-stream');
    if (!isSse(res)) throw new Error(`configure answered ${res.statusCode}: ${await text(res)}`);
    let result: { installExitCode: number; maxConcurrentInvokes: number; entrypoint: string[] } | undefined;
    await readSse(res, (event, data) => {
      if (event === 'error') throw new Error(`configure sent error: ${data}`);
      if (event === 'result') result = JSON.parse(data) as typeof result;
    });
    const ms = performance.now() - t0;
    if (!result) throw new Error('the configure stream ended without a result event');
    if (result.installExitCode !== 0)
      throw new Error(`configure: install exit code ${result.installExitCode}`);
    if (JSON.stringify(result.entrypoint) !== JSON.stringify(entrypoint))
      throw new Error(`configure recorded entrypoint ${JSON.stringify(result.entrypoint)}`);
    if (result.maxConcurrentInvokes < CONCURRENCY)
      throw new Error(
        `configure: maxConcurrentInvokes is ${result.maxConcurrentInvokes}, below ${CONCURRENCY}`,
      );
    return ms;
  }

  /** One invoke, from the request until its response has ended. */
  async invoke(name: string, stdin: string): Promise<Measured> {
    const r = await this.tryInvoke(name, stdin);
    if ('retryAfter' in r) throw new Error(`invoke answered 429 (retry-after ${r.retryAfter})`);
    return r;
  }

  /** One invoke, or what its 429 said. */
  async tryInvoke(name: string, stdin: string): Promise<Measured | { retryAfter: string }> {
    const t0 = performance.now();
    const res = await this.send('POST', `/api/v1/sandboxes/${name}/invoke`, stdin, 'text/event-stream');
    if (res.statusCode === 429) {
      await text(res);
      return { retryAfter: String(res.headers['retry-after']) };
    }
    if (!isSse(res)) throw new Error(`invoke answered ${res.statusCode}: ${await text(res)}`);
    let bytes = 0;
    let logEvents = 0;
    let invokeId: string | undefined;
    let exit: { invokeId: string; exitCode: number; reason: string; durationMs: number } | undefined;
    await readSse(res, (event, data) => {
      if (event === 'start') invokeId = (JSON.parse(data) as { invokeId: string }).invokeId;
      else if (event === 'log') {
        const log = JSON.parse(data) as { stream: string; data: string };
        if (log.stream === 'stdout') bytes += Buffer.byteLength(log.data);
        logEvents++;
      } else if (event === 'exit') exit = JSON.parse(data) as typeof exit;
      else if (event === 'error') throw new Error(`invoke sent error: ${data}`);
    });
    const ms = performance.now() - t0;
    if (!exit) throw new Error('the invoke stream ended without an exit event');
    if (invokeId === undefined || exit.invokeId !== invokeId)
      throw new Error(`exit of ${exit.invokeId} after start of ${invokeId}`);
    if (exit.exitCode !== 0 || exit.reason !== 'completed')
      throw new Error(`invoke exited ${exit.exitCode} (${exit.reason})`);
    return { ms, bytes, logEvents, insideMs: exit.durationMs };
  }
}

/** `total` invokes, CONCURRENCY of them in flight at a time. */
async function concurrent(
  api: Api,
  total: number,
): Promise<{ ms: number; times: number[]; throttled: number }> {
  let next = 0;
  let throttled = 0;
  const times: number[] = [];
  const t0 = performance.now();
  const worker = async () => {
    while (next < total) {
      next++;
      for (let attempt = 0; ; attempt++) {
        const r = await api.tryInvoke(SANDBOX, '');
        if (!('retryAfter' in r)) {
          times.push(r.ms);
          break;
        }
        throttled++;
        if (attempt >= MAX_429_RETRIES) throw new Error(`invoke answered 429 ${MAX_429_RETRIES + 1} times`);
        await sleep(RETRY_429_MS);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, total) }, worker));
  return { ms: performance.now() - t0, times, throttled };
}

const isSse = (res: IncomingMessage) =>
  res.statusCode === 200 && (res.headers['content-type'] ?? '').startsWith('text/event-stream');

async function text(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let out = '';
  for await (const chunk of res as AsyncIterable<string>) out += chunk;
  return out;
}

async function readSse(res: IncomingMessage, onEvent: (event: string, data: string) => void): Promise<void> {
  res.setEncoding('utf8');
  const parser = new SseParser();
  for await (const chunk of res as AsyncIterable<string>)
    for (const m of parser.push(chunk)) onEvent(m.event, m.data);
}

async function printLogs(logs: string, managed: Managed[]): Promise<void> {
  for (const m of managed) {
    const lines = (await readFile(join(logs, `${m.name}.log`), 'utf8').catch(() => '')).trimEnd().split('\n');
    console.error(`--- last lines of ${m.name}'s log ---\n${lines.slice(-40).join('\n')}`);
  }
}

await main();
