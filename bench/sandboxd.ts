// make bench-sandboxd: what sandboxd (the Go binary, dist/sandboxd) costs, against the same
// work done directly from Node, both measured in this run. (a) Start to healthy: spawn until
// its ready file appears and /healthz answers. (b) The round trip of `true` (POST /runs until
// the `exit` event) against spawn('true') until it closes. (c) Resident memory after those
// runs, against a Node process doing nothing. (d) 256 MiB of stdout streamed as SSE `log`
// events to an HTTP client against reading the same program's stdout from a plain pipe. The
// client asks for the upgraded form of POST /runs, as the API and the operator do
// (sandboxd/internal/runs/upgrade.go); the same stream as a 200 answer, read through Node's HTTP parser,
// is measured beside it.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxdClient } from '../kube/sandboxd/index.ts';
import { freePort } from '../stack/index.ts';
import { waitForFile } from '../test/sandboxd/daemon.ts';
import { directRun, fmt, percentile, round, type Measured } from './support.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const WARMUP = 20;
const STREAM_BYTES = 256 * 1024 * 1024;
const STREAM_REPEATS = 5;
const MiB = 1024 * 1024;
// 80-byte lines of printable text, as a chatty build log: `head` cuts them at exactly
// STREAM_BYTES. (Not /dev/zero: a NUL is six bytes in JSON, `\u0000`, which would measure
// JSON escaping rather than streaming.)
const LINE = 'x'.repeat(79);
const STREAM_ARGV = ['sh', '-c', `yes ${LINE} | head -c ${STREAM_BYTES}`];

const STARTS = 10;
const root = join(import.meta.dirname, '..');
const binary = join(root, 'dist/sandboxd');
const workspace = await mkdtemp(join(tmpdir(), 'bench-sandboxd-'));
const daemon = { child: undefined as ChildProcess | undefined };
try {
  const token = 'bench-token';
  const startMs: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const s = await startDaemon(token, `start-${i}`);
    startMs.push(s.ms);
    await stopDaemon(s.child);
  }
  // The real daemon, as a sandbox runs it: its own process, configured the operator's way.
  const started = await startDaemon(token, 'bench');
  daemon.child = started.child;
  const client = started.client;

  const viaSandboxd = (i: number) => sandboxdRun(client, `rt-${i}`, ['true'], workspace);
  const direct = () => directRun(['true']);
  for (let i = 0; i < WARMUP; i++) {
    await viaSandboxd(-i - 1);
    await direct();
  }
  const spawnMs: number[] = [];
  const insideMs: number[] = [];
  const directMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await viaSandboxd(i);
    spawnMs.push(r.ms);
    insideMs.push(r.insideMs);
  }
  for (let i = 0; i < RUNS; i++) directMs.push((await direct()).ms);

  const rssMb = await rssOf(daemon.child.pid!);
  const idleNode = spawn(process.execPath, ['-e', "console.log('up'); setInterval(() => {}, 1 << 30)"], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(idleNode.stdout, 'data');
  const nodeIdleRssMb = await rssOf(idleNode.pid!);
  await stopDaemon(idleNode);

  const plainClient = new SandboxdClient({ address: started.address, token, upgradeRuns: false });
  const streamMbS: number[] = [];
  const plainMbS: number[] = [];
  const pipeMbS: number[] = [];
  const rawMbS: number[] = [];
  const streamEvents: number[] = [];
  for (let i = 0; i < STREAM_REPEATS; i++) {
    const s = await sandboxdRun(client, `stream-${i}`, STREAM_ARGV, workspace);
    const p = await directRun(STREAM_ARGV);
    const r = await sandboxdRawRun(client, `raw-${i}`, STREAM_ARGV, workspace);
    const a = await sandboxdRun(plainClient, `plain-${i}`, STREAM_ARGV, workspace);
    for (const m of [s, p, a])
      if (m.bytes !== STREAM_BYTES) throw new Error(`streamed ${m.bytes} bytes, not ${STREAM_BYTES}`);
    streamMbS.push(s.bytes / MiB / (s.ms / 1000));
    pipeMbS.push(p.bytes / MiB / (p.ms / 1000));
    // The output's own bytes per second, the SSE around them read but not parsed.
    rawMbS.push(STREAM_BYTES / MiB / (r.ms / 1000));
    plainMbS.push(a.bytes / MiB / (a.ms / 1000));
    streamEvents.push(s.logEvents);
  }

  const spawnP50 = percentile(spawnMs, 50);
  const directP50 = percentile(directMs, 50);
  const streamP50 = percentile(streamMbS, 50);
  const pipeP50 = percentile(pipeMbS, 50);
  const rawP50 = percentile(rawMbS, 50);
  const plainP50 = percentile(plainMbS, 50);
  const row = (name: string, xs: number[]) =>
    console.log(
      `${name.padEnd(24)}p50 ${fmt(percentile(xs, 50))} ms  p90 ${fmt(percentile(xs, 90))} ms  p99 ${fmt(percentile(xs, 99))} ms`,
    );
  console.log(
    `${'sandboxd start→healthy'.padEnd(24)}p50 ${fmt(percentile(startMs, 50))} ms  (${STARTS} starts)`,
  );
  console.log(
    `${'resident memory'.padEnd(24)}sandboxd ${rssMb.toFixed(1)} MB after ${WARMUP + RUNS} runs; idle node ${nodeIdleRssMb.toFixed(1)} MB`,
  );
  row(`sandboxd run 'true'`, spawnMs);
  row(`spawn('true')`, directMs);
  console.log(`${'overhead'.padEnd(24)}p50 ${fmt(spawnP50 - directP50)} ms  (${RUNS} runs each)`);
  console.log(
    `${'  of which in sandboxd'.padEnd(24)}mean ${fmt(insideMs.reduce((a, b) => a + b, 0) / RUNS)} ms spawn→close (the exit event's durationMs); the rest is HTTP + SSE`,
  );
  console.log(
    `${'sandboxd SSE stream'.padEnd(24)}${streamMbS.map((x) => x.toFixed(0)).join(' / ')} MiB/s  ` +
      `(median ${streamP50.toFixed(0)}, ${Math.round(percentile(streamEvents, 50))} log events per 256 MiB)`,
  );
  console.log(
    `${'plain pipe'.padEnd(24)}${pipeMbS.map((x) => x.toFixed(0)).join(' / ')} MiB/s  (median ${pipeP50.toFixed(0)})`,
  );
  console.log(
    `${'SSE read, not parsed'.padEnd(24)}${rawMbS.map((x) => x.toFixed(0)).join(' / ')} MiB/s  (median ${rawP50.toFixed(0)}: sandboxd without the client's JSON decoding)`,
  );
  console.log(
    `${'as a 200 answer'.padEnd(24)}${plainMbS.map((x) => x.toFixed(0)).join(' / ')} MiB/s  (median ${plainP50.toFixed(0)}: the same events through Node's HTTP parser)`,
  );
  console.log(`${'stream ratio'.padEnd(24)}${(streamP50 / pipeP50).toFixed(2)}`);
  console.log(
    JSON.stringify({
      bench: 'sandboxd',
      spawn_p50_ms: round(spawnP50, 3),
      direct_p50_ms: round(directP50, 3),
      overhead_p50_ms: round(spawnP50 - directP50, 3),
      stream_mb_s: round(streamP50, 1),
      pipe_mb_s: round(pipeP50, 1),
      stream_ratio: round(streamP50 / pipeP50, 3),
      raw_stream_mb_s: round(rawP50, 1),
      raw_stream_ratio: round(rawP50 / pipeP50, 3),
      answer_stream_mb_s: round(plainP50, 1),
      answer_stream_ratio: round(plainP50 / pipeP50, 3),
    }),
  );
  console.log(
    JSON.stringify({
      bench: 'sandboxd',
      rss_mb: round(rssMb, 1),
      node_idle_rss_mb: round(nodeIdleRssMb, 1),
      start_ms: round(percentile(startMs, 50), 2),
      overhead_p50_ms: round(spawnP50 - directP50, 3),
      stream_ratio: round(streamP50 / pipeP50, 3),
    }),
  );
} finally {
  if (daemon.child) await stopDaemon(daemon.child);
  await rm(workspace, { recursive: true, force: true });
}

/** Starts sandboxd on a free port; `ms` from spawn until its ready file and /healthz say so. */
async function startDaemon(
  token: string,
  name: string,
): Promise<{ child: ChildProcess; client: SandboxdClient; address: string; ms: number }> {
  const address = `127.0.0.1:${await freePort()}`;
  const readyFile = `${name}.ready`;
  const t0 = performance.now();
  const ready = waitForFile(workspace, readyFile, 30_000);
  const child = spawn(binary, [], {
    env: {
      ...process.env,
      SANDBOXD_LISTEN: address,
      SANDBOXD_TOKEN: token,
      SANDBOXD_WORKSPACE: workspace,
      SANDBOXD_READY_FILE: join(workspace, readyFile),
    },
    stdio: ['ignore', 'inherit', 'ignore'],
  });
  await ready;
  const client = new SandboxdClient({ address, token });
  if (!(await client.health())) throw new Error('sandboxd wrote its ready file but /healthz does not answer');
  return { child, client, address, ms: performance.now() - t0 };
}

async function stopDaemon(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** Resident memory of a process, MB (VmRSS). */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!kb) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb[1]) / 1024;
}

/** One run through sandboxd: from the POST until the `exit` event has been parsed. */
async function sandboxdRun(
  client: SandboxdClient,
  runId: string,
  argv: string[],
  cwd: string,
): Promise<Measured> {
  const t0 = performance.now();
  const res = await client.run({ runId, kind: 'exec', argv, cwd });
  if (res.status !== 200) throw new Error(`sandboxd answered ${res.status}: ${JSON.stringify(res.body)}`);
  let bytes = 0;
  let logEvents = 0;
  for await (const message of res.events) {
    if (message.event === 'log') {
      const log = JSON.parse(message.data) as { stream: string; data: string };
      if (log.stream === 'stdout') bytes += Buffer.byteLength(log.data);
      logEvents++;
    } else if (message.event === 'exit') {
      const ms = performance.now() - t0;
      const exit = JSON.parse(message.data) as { exitCode: number; reason: string; durationMs: number };
      if (exit.exitCode !== 0) throw new Error(`${argv.join(' ')} exited ${exit.exitCode} (${exit.reason})`);
      return { ms, bytes, logEvents, insideMs: exit.durationMs };
    }
  }
  throw new Error(`run ${runId}: the stream ended without an exit event`);
}

/**
 * The same run read as raw bytes (`runRaw`, as the API's invoke relays it): from the POST
 * until the response ends, which must end with the `exit` event of a clean exit.
 */
async function sandboxdRawRun(
  client: SandboxdClient,
  runId: string,
  argv: string[],
  cwd: string,
): Promise<{ ms: number; sseBytes: number }> {
  const t0 = performance.now();
  const res = await client.runRaw({ runId, kind: 'exec', argv, cwd }, Buffer.alloc(0));
  if (res.status !== 200 || !res.stream)
    throw new Error(`sandboxd answered ${res.status}: ${JSON.stringify(res.body)}`);
  let sseBytes = 0;
  // The last two chunks: the `exit` event is small and at most split across them.
  let previous: Buffer = Buffer.alloc(0);
  let last: Buffer = Buffer.alloc(0);
  for await (const chunk of res.stream as AsyncIterable<Buffer>) {
    sseBytes += chunk.length;
    previous = last;
    last = chunk;
  }
  const ms = performance.now() - t0;
  const tail = Buffer.concat([previous, last]).toString();
  if (!/event: exit\ndata: \{[^\n]*"exitCode":0,[^\n]*\}\n\n$/.test(tail))
    throw new Error(`run ${runId}: the stream did not end with a clean exit event`);
  return { ms, sseBytes };
}
