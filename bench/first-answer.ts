// When sandboxd in a Pod first answers, seen from the Pod's own node: the one observable both
// sides of make bench-peer CLUSTER=real share. Ours says Running once its operator's own
// check of sandboxd answered and the status is written; the peer says Ready when its Pod is
// Ready, which is the kubelet's readiness probe (every 2 s in the Pod spec both run) — two
// different clocks. So the bench asks sandboxd's /healthz itself, from inside the node's
// network namespace (the machine's own namespace has no route to a Pod, and a NetworkPolicy
// lets the node in, as it does the kubelet's probes), from the moment the Pod's IP shows in
// its status, at the operator's own pace: every 5 ms for 200 ms, then backing off to
// `capMs`.
//
// One child per node: this file run as `nsenter --net=/run/netns/svcc-RUN-nN node
// bench/first-answer.ts`, reading `{"key","ip","capMs"}` lines on stdin and writing
// `{"key","at"}` (epoch ms, performance.timeOrigin + now, so the bench's clock converts it)
// or `{"key","error"}`; it ends when its stdin does (the bench's end, however it ends).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { SandboxPod } from '../core/index.ts';

const BACKOFF_MS = [...Array<number>(40).fill(5), 10, 20, 40, 80, 160];
const GIVE_UP_MS = 300_000;

/** The bench's side: one prober child per node, and a promise per Pod. */
export class FirstAnswer {
  readonly #children = new Map<string, ChildProcessWithoutNullStreams>();
  readonly #waiting = new Map<string, { resolve: (ms: number) => void; reject: (e: Error) => void }>();
  readonly #asked = new Set<string>();
  #failed: Error | undefined;

  /** A prober in each of `nodes` (n1, n2, …) of run `run`. */
  constructor(run: string, nodes: string[]) {
    const node = process.execPath;
    for (const n of nodes) {
      const child = spawn(
        'nsenter',
        [`--net=/run/netns/svcc-${run}-${n}`, '--', node, import.meta.filename],
        {
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      child.stderr.on('data', (d: Buffer) => process.stderr.write(`first-answer ${n}: ${d.toString()}`));
      child.on('exit', (code) => {
        if (this.#children.has(n)) this.#fail(new Error(`the prober in node ${n} exited (${code})`));
      });
      createInterface({ input: child.stdout }).on('line', (line) => {
        const m = JSON.parse(line) as { key: string; at?: number; error?: string };
        const w = this.#waiting.get(m.key);
        if (!w) return;
        this.#waiting.delete(m.key);
        if (m.at !== undefined) w.resolve(m.at - performance.timeOrigin);
        else w.reject(new Error(`sandboxd of ${m.key} never answered from its node: ${m.error}`));
      });
      this.#children.set(n, child);
    }
  }

  /**
   * Asks the node's prober to find when sandboxd at `ip` first answers (once per key); the
   * promise resolves with that moment on this process's `performance.now()` clock.
   */
  probe(key: string, node: string, ip: string, capMs = 20): Promise<number> | undefined {
    if (this.#asked.has(key)) return undefined;
    const child = this.#children.get(node);
    if (!child) throw new Error(`no prober in node ${node}`);
    this.#asked.add(key);
    const answered = new Promise<number>((resolve, reject) => {
      if (this.#failed) return reject(this.#failed);
      this.#waiting.set(key, { resolve, reject });
    });
    // Not awaited until the bench asks for it: a failure before then must not end the process
    // unhandled (and skip the cleanup); the bench's own await still sees it.
    answered.catch(() => undefined);
    child.stdin.write(`${JSON.stringify({ key, ip, capMs })}\n`);
    return answered;
  }

  /** Forgets a key (its Pod deleted), so a Pod of the same name is probed again. */
  forget(key: string): void {
    this.#asked.delete(key);
    this.#waiting.delete(key);
  }

  stop(): void {
    const children = [...this.#children.values()];
    this.#children.clear();
    for (const c of children) {
      c.stdin.end();
      c.kill();
    }
  }

  #fail(err: Error): void {
    this.#failed ??= err;
    for (const w of this.#waiting.values()) w.reject(err);
    this.#waiting.clear();
  }
}

/** The child's side, inside a node's network namespace. */
async function firstAnswer(ip: string, capMs: number): Promise<number> {
  const deadline = performance.now() + GIVE_UP_MS;
  for (let i = 0; ; i++) {
    if (await healthy(ip)) return performance.timeOrigin + performance.now();
    if (performance.now() > deadline) throw new Error(`no answer in ${GIVE_UP_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, Math.min(BACKOFF_MS[i] ?? capMs, capMs)));
  }
}

function healthy(ip: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: ip, port: SandboxPod.port, path: '/healthz', timeout: 1000, agent: false });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

if (process.argv[1] === import.meta.filename) {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const { key, ip, capMs } = JSON.parse(line) as { key: string; ip: string; capMs: number };
    firstAnswer(ip, capMs).then(
      (at) => process.stdout.write(`${JSON.stringify({ key, at })}\n`),
      (err: Error) => process.stdout.write(`${JSON.stringify({ key, error: err.message })}\n`),
    );
  });
  lines.on('close', () => process.exit(0));
}
