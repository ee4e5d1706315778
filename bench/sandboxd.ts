// make bench-sandboxd: what sandboxd adds to a run, against the same work done directly from
// Node, both measured in this run. (a) The round trip of `true` (POST /runs until the `exit`
// event) against spawn('true') until it closes. (b) 256 MiB of stdout streamed as SSE `log`
// events to an HTTP client against reading the same program's stdout from a plain pipe.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SandboxdClient } from '../kube/sandboxd/index.ts';
import { freePort } from '../test/controlplane/ports.ts';
import { directRun, fmt, percentile, round, type Measured } from './support.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const WARMUP = 20;
const STREAM_BYTES = 256 * 1024 * 1024;
const STREAM_REPEATS = 3;
const MiB = 1024 * 1024;
// 80-byte lines of printable text, as a chatty build log: `head` cuts them at exactly
// STREAM_BYTES. (Not /dev/zero: a NUL is six bytes in JSON, `\u0000`, which would measure
// JSON escaping rather than streaming.)
const LINE = 'x'.repeat(79);
const STREAM_ARGV = ['sh', '-c', `yes ${LINE} | head -c ${STREAM_BYTES}`];

const root = join(import.meta.dirname, '..');
const workspace = await mkdtemp(join(tmpdir(), 'bench-sandboxd-'));
const daemon = { child: undefined as ChildProcess | undefined };
try {
  const token = 'bench-token';
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  // The real daemon, as a sandbox runs it: its own process, configured the operator's way.
  daemon.child = spawn(process.execPath, [join(root, 'cmd/svc.ts'), 'sandboxd'], {
    env: {
      ...process.env,
      SANDBOXD_LISTEN: address,
      SANDBOXD_TOKEN: token,
      SANDBOXD_WORKSPACE: workspace,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const client = new SandboxdClient({ address, token });
  await waitHealthy(client, daemon.child);

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

  const streamMbS: number[] = [];
  const pipeMbS: number[] = [];
  const streamEvents: number[] = [];
  for (let i = 0; i < STREAM_REPEATS; i++) {
    const s = await sandboxdRun(client, `stream-${i}`, STREAM_ARGV, workspace);
    const p = await directRun(STREAM_ARGV);
    for (const r of [s, p])
      if (r.bytes !== STREAM_BYTES) throw new Error(`streamed ${r.bytes} bytes, not ${STREAM_BYTES}`);
    streamMbS.push(s.bytes / MiB / (s.ms / 1000));
    pipeMbS.push(p.bytes / MiB / (p.ms / 1000));
    streamEvents.push(s.logEvents);
  }

  const spawnP50 = percentile(spawnMs, 50);
  const directP50 = percentile(directMs, 50);
  const streamP50 = percentile(streamMbS, 50);
  const pipeP50 = percentile(pipeMbS, 50);
  const row = (name: string, xs: number[]) =>
    console.log(
      `${name.padEnd(24)}p50 ${fmt(percentile(xs, 50))} ms  p90 ${fmt(percentile(xs, 90))} ms  p99 ${fmt(percentile(xs, 99))} ms`,
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
    }),
  );
} finally {
  const child = daemon.child;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
  await rm(workspace, { recursive: true, force: true });
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

async function waitHealthy(client: SandboxdClient, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`svc sandboxd exited ${child.exitCode}`);
    if (await client.health().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error('svc sandboxd did not start within 30 s');
    await sleep(50);
  }
}
