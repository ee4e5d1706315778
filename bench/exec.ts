// make bench-exec: POST /sandboxes/{id}/exec of `true` through the whole stack (HTTP API →
// sandboxd in a devnode Pod), as JSON (the figure) and as SSE, against spawn('true') from
// this process, all in one run. The control plane, devnode, the operator and the API run as
// they do under `make dev`: each an `svc` process of its own (hack/dev.ts's way).
import { Agent, request, type IncomingMessage } from 'node:http';
import { SandboxdKeySecret, SandboxdLocator, type SandboxdClient } from '../kube/index.ts';
import { eventually } from '../stack/index.ts';
import { SERVICE_NAMESPACE, startStack } from './stack.ts';
import { createBenchTemplate, directRun, fmt, percentile, round } from './support.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const WARMUP = 30;
const NAMESPACE = 'bench';
const TEMPLATE = 'bench-exec';
const SANDBOX = 'bench';
/** The same program on both sides: the argv form, so no shell runs in the sandbox either. */
const COMMAND = ['true'];

async function main(): Promise<void> {
  const stack = await startStack(NAMESPACE);
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  let failed = false;
  try {
    const kc = stack.kc;
    await createBenchTemplate(kc, TEMPLATE, { storage: { size: '1Gi' } });
    const api = new Api(stack.base, stack.key, agent);
    const made = await api.call('POST', '/api/v1/sandboxes', {
      name: SANDBOX,
      templateRef: { name: TEMPLATE },
    });
    if (made.status !== 201) throw new Error(`create answered ${made.status}: ${made.text}`);
    // Running, and its sandboxd answering (a Running phase can come a moment before).
    let last = '';
    await eventually(
      async () => {
        const r = await api.call('POST', `/api/v1/sandboxes/${SANDBOX}/exec`, { command: COMMAND });
        last = `${r.status} ${r.text}`;
        return r.status === 200;
      },
      { timeoutMs: 120_000, intervalMs: 100, describe: () => `an exec in ${SANDBOX} (last answer ${last})` },
    );

    // Not a figure of the JSON line: the same run asked of the sandbox's sandboxd straight,
    // as the API does, to split the API's own share from sandboxd's.
    const sandboxd = await new SandboxdLocator({
      kc,
      key: new SandboxdKeySecret({ kc, namespace: SERVICE_NAMESPACE }).read,
      devnode: true,
    }).client(NAMESPACE, SANDBOX);

    for (let i = 0; i < WARMUP; i++) {
      await api.exec(SANDBOX, 'application/json');
      await api.exec(SANDBOX, 'text/event-stream');
      await sandboxdRun(sandboxd, i);
      await directRun(COMMAND);
    }
    // Interleaved, so a change of the machine's load falls on all alike.
    const jsonMs: number[] = [];
    const sseMs: number[] = [];
    const sandboxdMs: number[] = [];
    const directMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      jsonMs.push(await api.exec(SANDBOX, 'application/json'));
      sseMs.push(await api.exec(SANDBOX, 'text/event-stream'));
      sandboxdMs.push(await sandboxdRun(sandboxd, WARMUP + i));
      directMs.push((await directRun(COMMAND)).ms);
    }

    const p50 = percentile(jsonMs, 50);
    const p99 = percentile(jsonMs, 99);
    const directP50 = percentile(directMs, 50);
    const row = (name: string, xs: number[]) =>
      console.log(
        `${name.padEnd(28)}p50 ${fmt(percentile(xs, 50))} ms  p90 ${fmt(percentile(xs, 90))} ms  p99 ${fmt(percentile(xs, 99))} ms  max ${fmt(Math.max(...xs))} ms`,
      );
    row(`API exec 'true' (JSON)`, jsonMs);
    row(`API exec 'true' (SSE)`, sseMs);
    row(`sandboxd POST /runs 'true'`, sandboxdMs);
    row(`spawn('true')`, directMs);
    console.log(
      `${'overhead'.padEnd(28)}p50 ${fmt(p50 - directP50)} ms JSON, ${fmt(percentile(sseMs, 50) - directP50)} ms SSE  (${RUNS} runs each; ratio ${(p50 / directP50).toFixed(2)})`,
    );
    console.log(
      JSON.stringify({
        bench: 'exec',
        p50_ms: round(p50, 3),
        p99_ms: round(p99, 3),
        direct_p50_ms: round(directP50, 3),
        overhead_p50_ms: round(p50 - directP50, 3),
      }),
    );
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    agent.destroy();
    await stack.close(failed);
  }
}

/** The API over HTTP/1.1 with keep-alive, as a client library would hold it. */
class Api {
  readonly #base: string;
  readonly #key: string;
  readonly #agent: Agent;
  constructor(base: string, key: string, agent: Agent) {
    this.#base = base;
    this.#key = key;
    this.#agent = agent;
  }

  send(method: string, path: string, body?: string, accept = 'application/json'): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.#base}${path}${path.startsWith('/api/') ? `?namespace=${NAMESPACE}` : ''}`,
        {
          method,
          agent: this.#agent,
          headers: {
            'x-api-key': this.#key,
            accept,
            ...(body === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
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

  /** One exec of COMMAND, from the request until its answer has ended; checks it succeeded. */
  async exec(name: string, accept: string): Promise<number> {
    const body = JSON.stringify({ command: COMMAND });
    const t0 = performance.now();
    const res = await this.send('POST', `/api/v1/sandboxes/${name}/exec`, body, accept);
    const answer = await text(res);
    const ms = performance.now() - t0;
    if (res.statusCode !== 200) throw new Error(`exec answered ${res.statusCode}: ${answer}`);
    const ok =
      accept === 'application/json'
        ? (JSON.parse(answer) as { exitCode: number; reason: string }).exitCode === 0
        : /event: exit\ndata: \{[^\n]*"exitCode":0,[^\n]*"reason":"completed"\}/.test(answer);
    if (!ok) throw new Error(`exec of ${COMMAND.join(' ')} did not complete with 0: ${answer}`);
    return ms;
  }
}

/** One run of COMMAND asked of sandboxd itself, until its stream has ended. */
async function sandboxdRun(sandboxd: SandboxdClient, i: number): Promise<number> {
  const t0 = performance.now();
  const res = await sandboxd.run({ runId: `bench-${i}`, kind: 'exec', argv: COMMAND });
  let exit = '';
  for await (const e of res.events) if (e.event === 'exit') exit = e.data;
  const ms = performance.now() - t0;
  if (!exit.includes('"exitCode":0')) throw new Error(`sandboxd run ${i}: ${res.status} ${exit}`);
  return ms;
}

async function text(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let out = '';
  for await (const chunk of res as AsyncIterable<string>) out += chunk;
  return out;
}

await main();
