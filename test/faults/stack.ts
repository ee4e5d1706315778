// `make dev` (hack/dev.ts) as a black box for the fault tests: started in a state folder of
// its own, its components found by their command lines in /proc (as an operator would find
// them with `ps`), killed with SIGKILL, started again on the same folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { SseParser, type SseMessage } from '../../core/index.ts';
import { mountsUnder, unmountUnder } from '../../devnode/index.ts';
import { eventually, freePort } from '../../stack/index.ts';

const root = resolve(import.meta.dirname, '../..');

export interface DevEnv {
  SVC_BASE_URL: string;
  SVC_ADMIN_KEY: string;
  SVC_ALICE_KEY: string;
  KUBECONFIG: string;
  SVC_NAMESPACE: string;
}

/** One `make dev` state folder and port, started and killed as often as a test likes. */
export class DevStack {
  readonly dir: string;
  readonly port: number;
  #child: ChildProcess | undefined;
  #output = '';
  env!: DevEnv;

  private constructor(dir: string, port: number) {
    this.dir = dir;
    this.port = port;
  }

  /** A fresh state folder (named so `make test`'s leftover check watches it) and port. */
  static async create(name: string): Promise<DevStack> {
    return new DevStack(await mkdtemp(join(tmpdir(), `svc-test-devnode-${name}-`)), await freePort());
  }

  /** What `make dev` printed, all runs together. */
  get output(): string {
    return this.#output;
  }

  /** The pid of the running `make dev` itself. */
  get pid(): number | undefined {
    return this.#child?.exitCode === null && this.#child.signalCode === null ? this.#child.pid : undefined;
  }

  /** Starts `make dev` on the folder and waits for its banner. */
  async start(): Promise<void> {
    const from = this.#output.length;
    const child = spawn(
      join(root, 'node_modules/.bin/node'),
      ['hack/dev.ts', '--dir', this.dir, '--port', String(this.port)],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.#child = child;
    child.stdout.on('data', (c: Buffer) => (this.#output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (this.#output += c.toString()));
    await eventually(
      () => {
        if (child.exitCode !== null) throw new Error('make dev exited');
        return Promise.resolve(this.#output.slice(from).includes('svc is running'));
      },
      { timeoutMs: 150_000, describe: () => `make dev output:\n${this.#output.slice(from)}` },
    );
    const text = await readFile(join(this.dir, 'env'), 'utf8');
    this.env = Object.fromEntries(
      [...text.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]),
    ) as unknown as DevEnv;
  }

  /** Ctrl-C: `make dev` stops everything; resolves with its exit code. */
  async stop(): Promise<number | null> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const [code] = (await exited) as [number | null];
    clearTimeout(timer);
    return code;
  }

  /** SIGKILL to `make dev` itself: no cleanup of any kind runs. Resolves once it is gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  /** Stops it if it runs, then removes the folder (and whatever a failed test left mounted in it). */
  async remove(): Promise<void> {
    await this.stop();
    await unmountUnder(this.dir).catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Pids of `svc <component>` processes of this stack (by their flags naming its folder). */
  async pidsOf(component: string): Promise<number[]> {
    return (await processes())
      .filter(
        (p) =>
          p.argv.some((a) => a.endsWith('cmd/svc.ts')) &&
          p.argv.includes(component) &&
          p.argv.some((a) => a.startsWith(`${this.dir}/`)),
      )
      .map((p) => p.pid);
  }

  /** Every live process whose command line names this stack's folder (its whole process tree but `make dev`). */
  async processes(): Promise<{ pid: number; argv: string[] }[]> {
    return (await processes()).filter((p) => p.argv.some((a) => a.includes(`${this.dir}/`)));
  }

  /**
   * Every mount point under the folder, one entry per mount (a mount stacked on another
   * shows its point twice), sorted.
   */
  async mounts(): Promise<string[]> {
    const info = await readFile('/proc/self/mountinfo', 'utf8');
    const under = new Set(await mountsUnder(this.dir));
    return info
      .split('\n')
      .map((line) =>
        (line.split(' ')[4] ?? '').replace(/\\([0-7]{3})/g, (_, o: string) =>
          String.fromCharCode(parseInt(o, 8)),
        ),
      )
      .filter((point) => under.has(point))
      .sort();
  }

  /** A component's log (`.dev/logs/<name>.log`). */
  log(component: string): Promise<string> {
    return readFile(join(this.dir, 'logs', `${component}.log`), 'utf8').catch(() => '');
  }

  core(): CoreV1Api {
    const kc = new KubeConfig();
    kc.loadFromFile(this.env.KUBECONFIG);
    return kc.makeApiClient(CoreV1Api);
  }

  /** A call to the API under `/api/v1` with `key` (alice's by default). */
  call(method: string, path: string, opts: { key?: string; body?: unknown } = {}): Promise<Response> {
    return fetch(`${this.env.SVC_BASE_URL}/api/v1${path}`, {
      method,
      headers: {
        'x-api-key': opts.key ?? this.env.SVC_ALICE_KEY,
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    });
  }

  /** Waits until the sandbox is Running; resolves with it. */
  async running(name: string, timeoutMs = 120_000): Promise<void> {
    let last = '';
    await eventually(
      async () => {
        const res = await this.call('GET', `/sandboxes/${name}`);
        last = `${res.status} ${await res.text()}`;
        return res.status === 200 && (JSON.parse(last.slice(4)) as Phased).status?.phase === 'Running';
      },
      { timeoutMs, intervalMs: 250, describe: () => `sandbox ${name} Running; last: ${last.slice(0, 400)}` },
    );
  }

  /** An agent sandbox whose entrypoint is `sh /workspace/agent.sh` with `script`, configured and Running. */
  async agent(name: string, script: string, template = 'minimal'): Promise<void> {
    const created = await this.call('POST', '/sandboxes', {
      body: { name, templateRef: { name: template }, mode: 'agent' },
    });
    if (created.status !== 201) throw new Error(`create ${name}: ${created.status} ${await created.text()}`);
    await this.running(name);
    const configured = await this.call('POST', `/sandboxes/${name}/configure`, {
      body: {
        files: [{ path: '/workspace/agent.sh', content: script }],
        entrypoint: ['sh', '/workspace/agent.sh'],
      },
    });
    const text = await configured.text();
    if (configured.status !== 200 || !text.includes('event: result'))
      throw new Error(`configure ${name}: ${configured.status} ${text}`);
  }

  /** Starts an invoke with `stdin`; its SSE events arrive on the returned stream. */
  async invoke(name: string, stdin: string): Promise<InvokeStream> {
    const res = await fetch(`${this.env.SVC_BASE_URL}/api/v1/sandboxes/${name}/invoke`, {
      method: 'POST',
      headers: { 'x-api-key': this.env.SVC_ALICE_KEY, accept: 'text/event-stream' },
      body: stdin,
    });
    if (res.status !== 200 || !res.body) throw new Error(`invoke ${name}: ${res.status} ${await res.text()}`);
    return new InvokeStream(res.body);
  }

  /** An invoke run to its end: its stdout and its events. */
  async invokeToEnd(name: string, stdin: string): Promise<{ stdout: string; events: SseMessage[] }> {
    const s = await this.invoke(name, stdin);
    await s.ended;
    return { stdout: s.stdout, events: s.events };
  }

  /** The host pid of a sandbox's sandboxd: pid 1 of its Pod's `sandbox` container, as devnode reports it. */
  async sandboxdPid(name: string): Promise<{ pid: number; restartCount: number }> {
    const pods = await this.core().listNamespacedPod({
      namespace: this.env.SVC_NAMESPACE,
      labelSelector: `svc.io/sandbox=${name}`,
    });
    const status = pods.items[0]?.status?.containerStatuses?.find((c) => c.name === 'sandbox');
    const pid = Number(/^devnode:\/\/(\d+)$/.exec(status?.containerID ?? '')?.[1]);
    if (!status?.state?.running || !pid) throw new Error(`no running sandbox container for ${name}`);
    return { pid, restartCount: status.restartCount };
  }
}

interface Phased {
  status?: { phase?: string };
}

/** An invoke's SSE stream, read as it arrives. */
export class InvokeStream {
  readonly events: SseMessage[] = [];
  stdout = '';
  /** Resolves when the stream ends (cleanly or not); never rejects. */
  readonly ended: Promise<void>;
  failure: string | undefined;

  constructor(body: ReadableStream<Uint8Array>) {
    const parser = new SseParser();
    const decoder = new TextDecoder();
    this.ended = (async () => {
      try {
        for await (const chunk of body) {
          for (const m of parser.push(decoder.decode(chunk, { stream: true }))) {
            this.events.push(m);
            if (m.event === 'log') {
              const log = JSON.parse(m.data) as { stream: string; data: string };
              if (log.stream === 'stdout') this.stdout += log.data;
            }
          }
        }
      } catch (err) {
        this.failure = (err as Error).message;
      }
    })();
  }

  /** The invoke id, from the `start` event. */
  get invokeId(): string | undefined {
    const start = this.events.find((e) => e.event === 'start');
    return start ? (JSON.parse(start.data) as { invokeId: string }).invokeId : undefined;
  }

  /** Resolves once stdout holds `text`. */
  async waitForOutput(text: string | RegExp, timeoutMs = 60_000): Promise<void> {
    await eventually(
      () => Promise.resolve(typeof text === 'string' ? this.stdout.includes(text) : text.test(this.stdout)),
      {
        timeoutMs,
        intervalMs: 50,
        describe: () => `stdout ${String(text)}; got: ${this.stdout.slice(-300)}`,
      },
    );
  }
}

/** Every live process: pid and argv. */
async function processes(): Promise<{ pid: number; argv: string[] }[]> {
  const out: { pid: number; argv: string[] }[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline) out.push({ pid: Number(entry), argv: cmdline.split('\0').filter(Boolean) });
  }
  return out;
}

/** Whether a process with this pid lives (and is not a zombie). */
export async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && !/^\d+ \(.*\) Z /.test(stat);
}
