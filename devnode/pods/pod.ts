import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, watch, type FSWatcher } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import type { CoreV1Api, V1Container, V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Annotations, SandboxPod } from '../../core/index.ts';
import { SandboxdClient, isStatus, mergePatch } from '../../kube/index.ts';
import { bwrapArgs, sandboxPath, type BwrapMount } from './bwrap.ts';
import { PodCgroup } from './cgroup.ts';
import { readChildPid } from './info-fd.ts';
import { materializeVolumes } from './volumes.ts';

const run = promisify(execFile);
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Inside the Pod, where sandboxd's unix socket lives (bound from the Pod's folder). */
const SOCKET_DIR = '/run/devnode';

export interface PodDeps {
  core: CoreV1Api;
  logger: Logger;
  podDir: string;
  podIP: string;
  sandboxdCommand: string[];
}

interface ContainerState {
  name: string;
  restartCount: number;
  running?: { startedAt: Date; child: ChildProcess; pid?: number };
  terminated?: { exitCode: number; signal?: string; reason: string; startedAt: Date; finishedAt: Date };
  last?: ContainerState['terminated'];
  waiting?: string;
  ready: boolean;
}

/**
 * One Pod bound to devnode: its volumes as folders, a private root, init containers run
 * to completion, then its containers as bubblewrap process trees supervised per
 * `restartPolicy`; its status written as the kubelet would.
 */
export class PodSandbox {
  readonly #d: PodDeps;
  readonly #pod: V1Pod;
  readonly #states = new Map<string, ContainerState>();
  #volumes = new Map<string, string>();
  #root: string | undefined;
  /** The Pod's cgroup, when the host lets devnode make one (sandboxd's usage reads it). */
  #cgroup: PodCgroup | undefined;
  #stopping = false;
  #initialized = false;
  readonly #startTime = new Date();
  /** When each Pod condition last flipped, as the kubelet reports it. */
  readonly #transitions = new Map<string, { ok: boolean; at: Date }>();
  #failed: string | undefined;
  #sandboxd: SandboxdClient | undefined;
  #timers = new Set<NodeJS.Timeout>();
  #watchers = new Set<FSWatcher>();
  #writing: Promise<void> = Promise.resolve();
  /** The Pod's folders and root being set up: a stop waits for it, so no mount outlives the Pod. */
  #preparing: Promise<unknown> = Promise.resolve();

  constructor(pod: V1Pod, deps: PodDeps) {
    this.#pod = pod;
    this.#d = deps;
  }

  get uid(): string {
    return this.#pod.metadata!.uid!;
  }

  /** Host address of the Pod's sandboxd, when it runs one. */
  get sandboxdSocket(): string {
    return join(this.#d.podDir, 'run', 'sandboxd.sock');
  }

  get sandboxd(): SandboxdClient | undefined {
    return this.#sandboxd;
  }

  get labels(): Record<string, string> {
    return this.#pod.metadata?.labels ?? {};
  }

  get namespace(): string {
    return this.#pod.metadata!.namespace!;
  }

  async start(): Promise<void> {
    const spec = this.#pod.spec!;
    for (const c of [...(spec.initContainers ?? []), ...spec.containers])
      this.#states.set(c.name, { name: c.name, restartCount: 0, ready: false });
    try {
      this.#preparing = this.#prepare();
      await this.#preparing;
      if (this.#stopping) return;
    } catch (err) {
      this.#failed = `devnode could not prepare the Pod: ${(err as Error).message}`;
      this.#d.logger.warn({ pod: this.#key, err: (err as Error).message }, 'pod setup failed');
      await this.#writeStatus();
      return;
    }
    await this.#writeStatus();
    for (const c of spec.initContainers ?? []) {
      if (!(await this.#runToCompletion(c))) return;
    }
    this.#initialized = true;
    for (const c of spec.containers) void this.#startContainer(c);
    await this.#writeStatus();
  }

  async #prepare(): Promise<void> {
    await mkdir(join(this.#d.podDir, 'run'), { recursive: true });
    await mkdir(join(this.#d.podDir, 'logs'), { recursive: true });
    this.#volumes = await materializeVolumes(this.#pod, this.#d.podDir, this.#d.core);
    this.#root = await this.#mountRoot();
    this.#cgroup = await PodCgroup.create(this.uid);
    if (!this.#cgroup)
      this.#d.logger.warn({ pod: this.#key }, 'no cgroup for the Pod; its usage shows no CPU or memory');
  }

  /** SIGTERM to every container, SIGKILL after the grace period; then nothing is left. */
  async stop(graceSeconds: number): Promise<void> {
    this.#stopping = true;
    // A Pod deleted while it was being set up: its root is mounted once, then undone here.
    await this.#preparing.catch(() => undefined);
    this.#timers.forEach((t) => clearTimeout(t));
    this.#watchers.forEach((w) => w.close());
    const running = [...this.#states.values()].flatMap((s) => (s.running ? [s.running] : []));
    await Promise.all(running.map((r) => stopProcess(r, graceSeconds * 1000)));
    // Whatever of the Pod outlived its pid 1 (a bwrap helper orphaned mid-start) names the Pod's folder.
    await run('pkill', ['-KILL', '-f', this.#d.podDir]).catch(() => undefined);
    if (this.#root) await run('umount', ['-l', this.#root]).catch(() => undefined);
    await this.#cgroup?.remove();
    await this.#writing;
    await rm(this.#d.podDir, { recursive: true, force: true });
  }

  /** The host files of the sandboxd launcher, which every container gets read-only. */
  get #runtimeFiles(): string[] {
    return this.#d.sandboxdCommand.filter((p) => p.startsWith('/'));
  }

  get #key(): string {
    return `${this.#pod.metadata!.namespace}/${this.#pod.metadata!.name}`;
  }

  /** An overlay over the host's `/`, so the Pod writes anywhere and the host sees none of it. */
  async #mountRoot(): Promise<string | undefined> {
    const base = join(this.#d.podDir, 'root');
    const [upper, work, merged] = ['upper', 'work', 'merged'].map((d) => join(base, d)) as [
      string,
      string,
      string,
    ];
    await Promise.all([upper, work, merged].map((d) => mkdir(d, { recursive: true })));
    try {
      await run('mount', [
        '-t',
        'overlay',
        'overlay',
        '-o',
        `lowerdir=/,upperdir=${upper},workdir=${work}`,
        merged,
      ]);
      return merged;
    } catch (err) {
      this.#d.logger.warn(
        { err: (err as Error).message },
        'no overlay root; the Pod sees a read-only host root',
      );
      return undefined;
    }
  }

  async #runToCompletion(c: V1Container): Promise<boolean> {
    for (;;) {
      if (this.#stopping) return false;
      const code = await this.#startContainer(c, { once: true });
      if (code === 0) return true;
      if (this.#pod.spec?.restartPolicy === 'Never') {
        this.#failed = `init container ${c.name} failed with exit code ${code}`;
        await this.#writeStatus();
        return false;
      }
      await this.#sleep(backoffMs(this.#states.get(c.name)!.restartCount));
      this.#states.get(c.name)!.restartCount++;
    }
  }

  /**
   * Starts a container. With `once`, resolves with its exit code (init containers);
   * otherwise supervises it, restarting per `restartPolicy` with a capped backoff.
   */
  #startContainer(c: V1Container, opts: { once?: boolean } = {}): Promise<number> {
    const state = this.#states.get(c.name)!;
    if (c.name === SandboxPod.installContainer) return this.#installSandboxd(c, state);
    return (async () => {
      let child: ChildProcess;
      try {
        const { args, env } = await this.#command(c);
        // A Pod deleted while it was starting never gets its process.
        if (this.#stopping) return 137;
        const log = createWriteStream(join(this.#d.podDir, 'logs', `${c.name}.log`), { flags: 'a' });
        // setpriv: the bwrap monitor itself dies with devnode (bwrap's --die-with-parent covers its child).
        const argv = ['setpriv', '--pdeathsig', 'KILL', '--', 'bwrap', ...args];
        const [command, ...rest] = this.#cgroup ? this.#cgroup.wrap(argv) : argv;
        child = spawn(command!, rest, {
          env,
          stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
        });
        child.stdout!.pipe(log);
        child.stderr!.pipe(log);
      } catch (err) {
        state.terminated = {
          exitCode: 128,
          reason: 'StartError',
          startedAt: new Date(),
          finishedAt: new Date(),
        };
        this.#d.logger.warn(
          { pod: this.#key, container: c.name, err: (err as Error).message },
          'container did not start',
        );
        await this.#writeStatus();
        return 128;
      }
      const running = { startedAt: new Date(), child, pid: undefined as number | undefined };
      readChildPid(child.stdio[3] as Readable | null).then(
        (pid) => (running.pid = pid),
        () => undefined,
      );
      state.running = running;
      state.terminated = undefined;
      state.waiting = undefined;
      if (!opts.once) this.#watchReadiness(c, state);
      else void this.#writeStatus();
      const exitCode = await new Promise<number>((resolve) =>
        child.once('exit', (code, signal) => resolve(code ?? 128 + signalNumber(signal))),
      );
      state.running = undefined;
      state.ready = false;
      state.terminated = {
        exitCode,
        reason: exitCode === 0 ? 'Completed' : 'Error',
        startedAt: running.startedAt,
        finishedAt: new Date(),
      };
      if (opts.once || this.#stopping) return exitCode;
      const policy = this.#pod.spec?.restartPolicy ?? 'Always';
      const restart = policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
      if (restart) {
        state.last = state.terminated;
        state.terminated = undefined;
        state.waiting = 'CrashLoopBackOff';
        await this.#writeStatus();
        await this.#sleep(backoffMs(state.restartCount));
        if (this.#stopping) return exitCode;
        state.restartCount++;
        void this.#startContainer(c);
      } else await this.#writeStatus();
      return exitCode;
    })();
  }

  /** The init container that copies sandboxd: satisfied with this checkout's sandboxd binary. */
  async #installSandboxd(c: V1Container, state: ContainerState): Promise<number> {
    const mount = c.volumeMounts?.find((m) => m.mountPath === SandboxPod.binDir);
    const dir = mount && this.#volumes.get(mount.name);
    const startedAt = new Date();
    if (!dir) {
      state.terminated = { exitCode: 1, reason: 'Error', startedAt, finishedAt: new Date() };
      return 1;
    }
    const [binary, ...rest] = this.#d.sandboxdCommand;
    if (binary !== undefined && rest.length === 0) {
      // The static binary itself, as the operator's init container copies it.
      await copyFile(binary, join(dir, 'sandboxd'));
    } else {
      // A launcher with a runtime: its files are bound into the Pod one by one (bwrap.ts).
      const runtime = this.#runtimeFiles;
      const quoted = this.#d.sandboxdCommand
        .map((a) => (a.startsWith('/') ? sandboxPath(runtime.indexOf(a), a) : a))
        .map((a) => `'${a.replaceAll("'", `'\\''`)}'`)
        .join(' ');
      await writeFile(join(dir, 'sandboxd'), `#!/bin/sh\nexec ${quoted} "$@"\n`, { mode: 0o755 });
    }
    state.terminated = { exitCode: 0, reason: 'Completed', startedAt, finishedAt: new Date() };
    return 0;
  }

  async #command(c: V1Container): Promise<{ args: string[]; env: Record<string, string> }> {
    const argv = [...(c.command ?? []), ...(c.args ?? [])];
    if (argv.length === 0) throw new Error('devnode pulls no images: the container needs a command');
    const env = await this.#environment(c);
    const mounts: BwrapMount[] = (c.volumeMounts ?? []).map((m) => {
      const hostPath = this.#volumes.get(m.name);
      if (!hostPath) throw new Error(`volume ${m.name} is not defined`);
      return { hostPath, mountPath: m.mountPath, readOnly: m.readOnly ?? false };
    });
    if (env.SANDBOXD_LISTEN !== undefined) {
      // sandboxd listens on a unix socket devnode reaches; the Pod's network is its own.
      env.SANDBOXD_LISTEN = `unix:${SOCKET_DIR}/sandboxd.sock`;
      // sandboxd writes this once it listens; devnode watches for it instead of polling.
      env.SANDBOXD_READY_FILE = `${SOCKET_DIR}/sandboxd.ready`;
      await rm(this.#readyFile, { force: true }); // a crashed sandboxd's, before a restart
      mounts.push({ hostPath: join(this.#d.podDir, 'run'), mountPath: SOCKET_DIR, readOnly: false });
      const token = env.SANDBOXD_TOKEN ?? (await this.#readMounted(mounts, env.SANDBOXD_TOKEN_FILE));
      if (token)
        this.#sandboxd = new SandboxdClient({ address: `unix:${this.sandboxdSocket}`, token: token.trim() });
    }
    const security = containerSecurity(c, this.#pod);
    const args = bwrapArgs({
      hostname: this.#pod.spec?.hostname ?? this.#pod.metadata!.name!,
      root: this.#root,
      mounts: [...mounts, ...(this.#cgroup?.mounts ?? [])],
      extraReadOnly: this.#runtimeFiles,
      workingDir: c.workingDir ?? '/',
      argv: [...security.prefix, ...argv],
      ...(security.capabilities ? { capabilities: security.capabilities } : {}),
    });
    return { args, env };
  }

  async #readMounted(mounts: BwrapMount[], path: string | undefined): Promise<string | undefined> {
    if (!path) return undefined;
    const m = mounts.find((x) => path.startsWith(`${x.mountPath}/`));
    return m
      ? readFile(join(m.hostPath, path.slice(m.mountPath.length)), 'utf8').catch(() => undefined)
      : undefined;
  }

  /** The container's environment: literal values, secretKeyRef and configMapKeyRef, and fieldRef. */
  async #environment(c: V1Container): Promise<Record<string, string>> {
    const meta = this.#pod.metadata!;
    const env: Record<string, string> = {
      PATH,
      HOME: '/root',
      HOSTNAME: this.#pod.spec?.hostname ?? meta.name!,
    };
    for (const e of c.env ?? []) {
      const from = e.valueFrom;
      if (!from) env[e.name] = e.value ?? '';
      else if (from.secretKeyRef) {
        const s = await this.#d.core.readNamespacedSecret({
          name: from.secretKeyRef.name!,
          namespace: meta.namespace!,
        });
        const v = s.data?.[from.secretKeyRef.key];
        if (v === undefined && !from.secretKeyRef.optional)
          throw new Error(`secret ${from.secretKeyRef.name} has no key ${from.secretKeyRef.key}`);
        if (v !== undefined) env[e.name] = Buffer.from(v, 'base64').toString();
      } else if (from.configMapKeyRef) {
        const m = await this.#d.core.readNamespacedConfigMap({
          name: from.configMapKeyRef.name!,
          namespace: meta.namespace!,
        });
        const v = m.data?.[from.configMapKeyRef.key];
        if (v !== undefined) env[e.name] = v;
      } else if (from.fieldRef) {
        const fields: Record<string, string> = {
          'metadata.name': meta.name!,
          'metadata.namespace': meta.namespace!,
          'metadata.uid': meta.uid!,
          'spec.nodeName': this.#pod.spec?.nodeName ?? '',
          'status.podIP': this.#d.podIP,
          'status.hostIP': '127.0.0.1',
        };
        env[e.name] = fields[from.fieldRef.fieldPath] ?? '';
      }
    }
    return env;
  }

  /** Host path of the file sandboxd writes once it listens. */
  get #readyFile(): string {
    return join(this.#d.podDir, 'run', 'sandboxd.ready');
  }

  /**
   * Ready once sandboxd answers (for the sandboxd container), else once started. Until then
   * devnode watches for sandboxd's ready file (no polling); once ready, a check every 2 s
   * notices a sandboxd that went away.
   */
  #watchReadiness(c: V1Container, state: ContainerState): void {
    const isSandboxd = c.env?.some((e) => e.name === 'SANDBOXD_LISTEN') ?? false;
    let watcher: FSWatcher | undefined;
    const probe = async () => {
      if (this.#stopping || !state.running) {
        watcher?.close();
        return;
      }
      const sandboxd = isSandboxd ? this.#sandboxd : undefined;
      const ready = sandboxd ? await sandboxd.health().catch(() => false) : true;
      if (ready !== state.ready) {
        state.ready = ready;
        await this.#writeStatus();
      }
      // Until sandboxd was first ready, the ready file's watch calls again.
      if (watcher && !ready) return;
      if (watcher) {
        watcher.close();
        this.#watchers.delete(watcher);
        watcher = undefined;
      }
      const t = setTimeout(() => void probe(), 2000);
      this.#timers.add(t);
    };
    if (isSandboxd) {
      const onChange = () => {
        if (watcher && existsSync(this.#readyFile)) void probe();
      };
      watcher = watch(join(this.#d.podDir, 'run'), onChange);
      this.#watchers.add(watcher);
      void this.#writeStatus().then(onChange);
    } else void this.#writeStatus().then(probe);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.#timers.delete(t);
        resolve();
      }, ms);
      this.#timers.add(t);
    });
  }

  /** Writes the Pod's status; writes are serialized so an older one never lands last. */
  #writeStatus(): Promise<void> {
    this.#writing = this.#writing
      .then(() => this.#patchStatus())
      .catch((err: unknown) => {
        if (!isStatus(err, 404))
          this.#d.logger.warn({ pod: this.#key, err: (err as Error).message }, 'pod status not written');
      });
    return this.#writing;
  }

  async #patchStatus(): Promise<void> {
    if (this.#stopping) return;
    const spec = this.#pod.spec!;
    const toStatus = (c: V1Container): V1ContainerStatus => {
      const s = this.#states.get(c.name)!;
      const t = s.terminated;
      return {
        name: c.name,
        image: c.image ?? '',
        imageID: '',
        containerID: s.running?.pid ? `devnode://${s.running.pid}` : undefined,
        ready: s.ready,
        started: !!s.running,
        restartCount: s.restartCount,
        state: s.running
          ? { running: { startedAt: s.running.startedAt } }
          : t
            ? {
                terminated: {
                  exitCode: t.exitCode,
                  reason: t.reason,
                  startedAt: t.startedAt,
                  finishedAt: t.finishedAt,
                },
              }
            : {
                waiting: {
                  reason: this.#failed ? 'CreateContainerError' : 'PodInitializing',
                  message: this.#failed,
                },
              },
        lastState: s.last
          ? {
              terminated: {
                exitCode: s.last.exitCode,
                reason: s.last.reason,
                startedAt: s.last.startedAt,
                finishedAt: s.last.finishedAt,
              },
            }
          : {},
      };
    };
    const containers = spec.containers.map(toStatus);
    const allReady = containers.every((c) => c.ready);
    const allDone = containers.every((c) => c.state?.terminated);
    const phase = this.#failed
      ? 'Failed'
      : !this.#initialized
        ? 'Pending'
        : allDone
          ? containers.every((c) => c.state?.terminated?.exitCode === 0)
            ? 'Succeeded'
            : 'Failed'
          : 'Running';
    const condition = (type: string, ok: boolean) => {
      const prev = this.#transitions.get(type);
      const at = prev && prev.ok === ok ? prev.at : new Date();
      this.#transitions.set(type, { ok, at });
      return { type, status: ok ? 'True' : 'False', lastTransitionTime: at };
    };
    await this.#d.core.patchNamespacedPodStatus(
      {
        name: this.#pod.metadata!.name!,
        namespace: this.#pod.metadata!.namespace!,
        body: {
          status: {
            phase,
            message: this.#failed,
            hostIP: '127.0.0.1',
            podIP: this.#d.podIP,
            podIPs: [{ ip: this.#d.podIP }],
            startTime: this.#startTime,
            conditions: [
              condition('PodScheduled', true),
              condition('Initialized', this.#initialized),
              condition('ContainersReady', allReady),
              condition('Ready', allReady),
            ],
            initContainerStatuses: (spec.initContainers ?? []).map(toStatus),
            containerStatuses: containers,
          },
        },
      },
      mergePatch,
    );
    if (this.#sandboxd && !this.#pod.metadata?.annotations?.[Annotations.sandboxdAddress]) {
      await this.#d.core.patchNamespacedPod(
        {
          name: this.#pod.metadata!.name!,
          namespace: this.#pod.metadata!.namespace!,
          body: {
            metadata: { annotations: { [Annotations.sandboxdAddress]: `unix:${this.sandboxdSocket}` } },
          },
        },
        mergePatch,
      );
      this.#pod.metadata = {
        ...this.#pod.metadata,
        annotations: {
          ...this.#pod.metadata?.annotations,
          [Annotations.sandboxdAddress]: `unix:${this.sandboxdSocket}`,
        },
      };
    }
  }
}

/** 1 s doubling to 30 s: the kubelet's CrashLoopBackOff, shortened for one machine. */
function backoffMs(restarts: number): number {
  return Math.min(1000 * 2 ** restarts, 30_000);
}

function signalNumber(signal: NodeJS.Signals | null): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return (signal && numbers[signal]) ?? 0;
}

/** SIGTERM to the container's pid 1, SIGKILL (which empties its pid namespace) after the grace. */
async function stopProcess(r: { child: ChildProcess; pid?: number }, graceMs: number): Promise<void> {
  const { child } = r;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(r.pid ?? child.pid!, s);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => {
    signal('SIGKILL');
    child.kill('SIGKILL');
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * As much of a container's securityContext as the tests need: `runAsUser`/`runAsGroup`
 * other than root start the command through setpriv as that user (leaving root clears every
 * capability, as a runtime's non-root container has none); a root container with
 * `capabilities.drop: [ALL]` keeps exactly `capabilities.add`. bwrap always sets no_new_privs.
 */
export function containerSecurity(c: V1Container, pod: V1Pod): { prefix: string[]; capabilities?: string[] } {
  const uid = c.securityContext?.runAsUser ?? pod.spec?.securityContext?.runAsUser ?? 0;
  const gid = c.securityContext?.runAsGroup ?? pod.spec?.securityContext?.runAsGroup ?? uid;
  if (uid !== 0) return { prefix: ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--'] };
  const caps = c.securityContext?.capabilities;
  if (!caps?.drop?.includes('ALL')) return { prefix: [] };
  return { prefix: [], capabilities: (caps.add ?? []).map((a) => `CAP_${a.replace(/^CAP_/, '')}`) };
}
