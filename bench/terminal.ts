// make bench-terminal: keystroke-to-echo through the terminal's WebSocket (client → API →
// sandboxd → pseudo-terminal → bash's readline → back) against the same keystroke typed
// into bash on a local pseudo-terminal of this machine (util-linux `script`, which relays a
// pipe to a pty as sandboxd relays a socket), in one run. The control plane, devnode, the
// operator and the API run as under `make dev`, each an `svc` process of its own.
import { spawn } from 'node:child_process';
import { WebSocket } from 'ws';
import { eventually } from '../stack/index.ts';
import { startStack } from './stack.ts';
import { createBenchTemplate, fmt, percentile, round } from './support.ts';

const KEYS = Number(process.env.BENCH_RUNS ?? 500);
const WARMUP = 50;
const NAMESPACE = 'bench';
const TEMPLATE = 'bench-terminal';
const SANDBOX = 'bench';

/** A terminal to type into: `write` input, and a wait for output containing a string. */
interface Typist {
  write(bytes: string): void;
  /** Resolves when the output since the last call contains `s`. */
  until(s: string): Promise<void>;
  close(): void;
}

function collector(): { push(b: Buffer): void; until(s: string): Promise<void> } {
  let seen = '';
  let waiting: { s: string; resolve: () => void } | undefined;
  return {
    push(b) {
      seen += b.toString('latin1');
      if (waiting && seen.includes(waiting.s)) {
        const w = waiting;
        waiting = undefined;
        seen = '';
        w.resolve();
      }
    },
    until(s) {
      if (seen.includes(s)) {
        seen = '';
        return Promise.resolve();
      }
      // A keystroke whose echo never comes fails the run instead of hanging it.
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`no ${JSON.stringify(s)} in 10 s; the output: ${JSON.stringify(seen.slice(-300))}`),
            ),
          10_000,
        );
        waiting = {
          s,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
    },
  };
}

async function apiTypist(base: string, key: string): Promise<Typist> {
  const ws = new WebSocket(
    `${base.replace('http', 'ws')}/api/v1/sandboxes/${SANDBOX}/terminal?cols=200&rows=50`,
    {
      headers: { 'x-api-key': key },
    },
  );
  const out = collector();
  ws.on('message', (data: Buffer, binary) => binary && out.push(data));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    write: (s) => ws.send(Buffer.from(s), { binary: true }),
    until: (s) => out.until(s),
    close: () => ws.close(),
  };
}

function localTypist(): Typist {
  // `script` gives bash a pseudo-terminal and relays our pipe to it: the same shape as
  // sandboxd's relay, without the network, the API and the container.
  const child = spawn('script', ['-qfec', 'bash --norc --noprofile -i', '/dev/null'], {
    env: { ...process.env, TERM: 'xterm-256color', PS1: '$ ' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const out = collector();
  child.stdout.on('data', (b: Buffer) => out.push(b));
  return {
    write: (s) => child.stdin.write(s),
    until: (s) => out.until(s),
    close: () => {
      // bash ends at the end of its input; SIGKILL in case `script` lingers.
      child.stdin.end();
      setTimeout(() => child.kill('SIGKILL'), 2_000).unref();
    },
  };
}

/** Types `x` (timed until its echo) then a backspace (untimed), `n` times. */
async function type(t: Typist, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    t.write('x');
    await t.until('x');
    times.push(performance.now() - start);
    t.write('\x7f');
    await t.until('\b');
  }
  return times;
}

async function ready(t: Typist): Promise<void> {
  t.write('echo "rea""dy"\n');
  await t.until('ready');
}

async function main(): Promise<void> {
  const stack = await startStack(NAMESPACE);
  let failed = false;
  try {
    const { base, key } = stack;
    await createBenchTemplate(stack.kc, TEMPLATE, { storage: { size: '1Gi' } });
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const made = await call('POST', '/api/v1/sandboxes', { name: SANDBOX, templateRef: { name: TEMPLATE } });
    if (made.status !== 201) throw new Error(`create answered ${made.status}: ${await made.text()}`);
    let phase: string | undefined;
    await eventually(
      async () => {
        const got = (await (await call('GET', `/api/v1/sandboxes/${SANDBOX}`)).json()) as {
          status?: { phase?: string };
        };
        phase = got.status?.phase;
        return phase === 'Running';
      },
      { timeoutMs: 120_000, intervalMs: 50, describe: () => `sandbox ${SANDBOX} Running (phase ${phase})` },
    );

    const remote = await apiTypist(base, key);
    const local = localTypist();
    await ready(remote);
    await ready(local);
    await type(remote, WARMUP);
    await type(local, WARMUP);
    // Interleaved rounds, so a slow moment of the machine falls on both.
    const apiMs: number[] = [];
    const localMs: number[] = [];
    for (let round = 0; round < 10; round++) {
      apiMs.push(...(await type(remote, KEYS / 10)));
      localMs.push(...(await type(local, KEYS / 10)));
    }
    remote.close();
    local.close();

    const p50 = percentile(apiMs, 50);
    const localP50 = percentile(localMs, 50);
    const row = (name: string, xs: number[]) =>
      console.log(
        `${name.padEnd(30)}p50 ${fmt(percentile(xs, 50))} ms  p90 ${fmt(percentile(xs, 90))} ms  p99 ${fmt(percentile(xs, 99))} ms  max ${fmt(Math.max(...xs))} ms`,
      );
    row('echo through the API', apiMs);
    row('echo on a local pty (script)', localMs);
    console.log(
      `${'overhead'.padEnd(30)}p50 ${fmt(p50 - localP50)} ms, ratio ${(p50 / localP50).toFixed(2)}  (${apiMs.length} keystrokes each)`,
    );
    console.log(
      JSON.stringify({
        bench: 'terminal',
        echo_p50_ms: round(p50, 3),
        echo_p99_ms: round(percentile(apiMs, 99), 3),
        local_p50_ms: round(localP50, 3),
        overhead_p50_ms: round(p50 - localP50, 3),
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
