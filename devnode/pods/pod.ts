import { execFile } from 'node:child_process';
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { CoreV1Api, V1Container, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Annotations, SandboxPod } from '../../core/index.ts';
import { isStatus, mergePatch, type SandboxdClient } from '../../kube/index.ts';
import { bwrapArgs, type BwrapMount } from './bwrap.ts';
import { PodCgroup } from './cgroup.ts';
import { containerEnvironment, containerSecurity } from './environment.ts';
import { mountRoot, unmountRoot } from './rootfs.ts';
import {
  attachSandboxd,
  installSandboxd,
  isSandboxd,
  runtimeFiles,
  sandboxdReadyFile,
  sandboxdSocket,
} from './sandboxd.ts';
import { crashLoopBackOff, podStatus, type Transition } from './status.ts';
import {
  backoffMs,
  exitCodeOf,
  restarts,
  spawnContainer,
  stopProcess,
  type Running,
  type Supervised,
} from './supervise.ts';
import { materializeVolumes } from './volumes.ts';

const run = promisify(execFile);

export interface PodDeps {
  core: CoreV1Api;
  logger: Logger;
  podDir: string;
  podIP: string;
  sandboxdCommand: string[];
}

/**
 * One Pod bound to devnode: its volumes as folders, a private root (rootfs.ts), init
 * containers run to completion, then its containers as bubblewrap process trees supervised
 * per `restartPolicy` (supervise.ts); its status written as the kubelet would (status.ts).
 */
export class PodSandbox {
  readonly #d: PodDeps;
  readonly #pod: V1Pod;
  readonly #states = new Map<string, Supervised>();
  #volumes = new Map<string, string>();
  #root: string | undefined;
  /** The Pod's cgroup, when the host lets devnode make one (sandboxd's usage reads it). */
  #cgroup: PodCgroup | undefined;
  #stopping = false;
  #initialized = false;
  readonly #startTime = new Date();
  /** When each Pod condition last flipped, as the kubelet reports it. */
  #transitions = new Map<string, Transition>();
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
    return sandboxdSocket(this.#d.podDir);
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
    this.#root = await mountRoot(this.#d.podDir, this.#d.logger);
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
    if (this.#root) await unmountRoot(this.#root);
    await this.#cgroup?.remove();
    await this.#writing;
    await rm(this.#d.podDir, { recursive: true, force: true });
  }

  get #key(): string {
    return `${this.#pod.metadata!.namespace}/${this.#pod.metadata!.name}`;
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
  async #startContainer(c: V1Container, opts: { once?: boolean } = {}): Promise<number> {
    const state = this.#states.get(c.name)!;
    if (c.name === SandboxPod.installContainer) {
      state.terminated = await installSandboxd(c, this.#volumes, this.#d.sandboxdCommand);
      return state.terminated.exitCode;
    }
    let running: Running;
    try {
      const { args, env } = await this.#command(c);
      // A Pod deleted while it was starting never gets its process.
      if (this.#stopping) return 137;
      running = spawnContainer(args, env, this.#cgroup, join(this.#d.podDir, 'logs', `${c.name}.log`));
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
    state.running = running;
    state.terminated = undefined;
    state.waiting = undefined;
    if (!opts.once) this.#watchReadiness(c, state);
    else void this.#writeStatus();
    const exitCode = await exitCodeOf(running.child);
    state.running = undefined;
    state.ready = false;
    state.terminated = {
      exitCode,
      reason: exitCode === 0 ? 'Completed' : 'Error',
      startedAt: running.startedAt,
      finishedAt: new Date(),
    };
    if (opts.once || this.#stopping) return exitCode;
    if (restarts(this.#pod.spec?.restartPolicy, exitCode)) {
      state.last = state.terminated;
      state.terminated = undefined;
      const backoff = backoffMs(state.restartCount);
      const { name, namespace, uid } = this.#pod.metadata!;
      state.waiting = crashLoopBackOff(backoff, c.name, { name: name!, namespace: namespace!, uid: uid! });
      await this.#writeStatus();
      await this.#sleep(backoff);
      if (this.#stopping) return exitCode;
      state.restartCount++;
      void this.#startContainer(c);
    } else await this.#writeStatus();
    return exitCode;
  }

  /** bwrap's arguments and the environment for a container. */
  async #command(c: V1Container): Promise<{ args: string[]; env: Record<string, string> }> {
    const argv = [...(c.command ?? []), ...(c.args ?? [])];
    if (argv.length === 0) throw new Error('devnode pulls no images: the container needs a command');
    const env = await containerEnvironment(c, this.#pod, this.#d);
    const mounts: BwrapMount[] = (c.volumeMounts ?? []).map((m) => {
      const hostPath = this.#volumes.get(m.name);
      if (!hostPath) throw new Error(`volume ${m.name} is not defined`);
      return { hostPath, mountPath: m.mountPath, readOnly: m.readOnly ?? false };
    });
    const sandboxd = await attachSandboxd(env, mounts, this.#d.podDir);
    if (sandboxd) this.#sandboxd = sandboxd;
    const security = containerSecurity(c, this.#pod);
    const args = bwrapArgs({
      hostname: this.#pod.spec?.hostname ?? this.#pod.metadata!.name!,
      root: this.#root,
      mounts: [...mounts, ...(this.#cgroup?.mounts ?? [])],
      extraReadOnly: runtimeFiles(this.#d.sandboxdCommand),
      workingDir: c.workingDir ?? '/',
      argv: [...security.prefix, ...argv],
      ...(security.capabilities ? { capabilities: security.capabilities } : {}),
    });
    return { args, env };
  }

  /**
   * Ready once sandboxd answers (for the sandboxd container), else once started. Until then
   * devnode watches for sandboxd's ready file (no polling); once ready, a check every 2 s
   * notices a sandboxd that went away.
   */
  #watchReadiness(c: V1Container, state: Supervised): void {
    const ofSandboxd = isSandboxd(c);
    let watcher: FSWatcher | undefined;
    const probe = async () => {
      if (this.#stopping || !state.running) {
        watcher?.close();
        return;
      }
      const sandboxd = ofSandboxd ? this.#sandboxd : undefined;
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
    if (ofSandboxd) {
      const onChange = () => {
        if (watcher && existsSync(sandboxdReadyFile(this.#d.podDir))) void probe();
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
    const { status, transitions } = podStatus({
      initContainers: spec.initContainers ?? [],
      containers: spec.containers,
      states: this.#states,
      failed: this.#failed,
      initialized: this.#initialized,
      startTime: this.#startTime,
      podIP: this.#d.podIP,
      transitions: this.#transitions,
      now: new Date(),
    });
    this.#transitions = transitions;
    const { name, namespace } = this.#pod.metadata as { name: string; namespace: string };
    await this.#d.core.patchNamespacedPodStatus({ name, namespace, body: { status } }, mergePatch);
    if (this.#sandboxd && !this.#pod.metadata?.annotations?.[Annotations.sandboxdAddress]) {
      // The API finds the Pod's sandboxd through this annotation, as it would a Pod IP.
      const annotations = { [Annotations.sandboxdAddress]: `unix:${this.sandboxdSocket}` };
      await this.#d.core.patchNamespacedPod(
        { name, namespace, body: { metadata: { annotations } } },
        mergePatch,
      );
      this.#pod.metadata = {
        ...this.#pod.metadata,
        annotations: { ...this.#pod.metadata?.annotations, ...annotations },
      };
    }
  }
}
