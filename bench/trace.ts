// Where a cold create spends its time (bench-tti's trace): every object and status change of a
// sandbox as the bench's watches see them arrive, and on a real node containerd's own events
// (`ctr events`: each task created, started, exited, with nanosecond times), each step in ms
// from the create's POST. Kubernetes' own timestamps (creationTimestamp, managedFields, Pod
// conditions, startedAt) are whole seconds, too coarse for a path of one or two seconds; a
// watch event arrives within a millisecond or two of its write on this machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { GROUP, Labels, SandboxPod, VERSION } from '../core/index.ts';
import { Sight } from './sight.ts';
import { median } from './support.ts';

/** The steps, in the order a cold create takes them; a side shows those it can see. */
export const STEPS = [
  ['created', 'POST /sandboxes answered 201'],
  ['sandbox', 'Sandbox seen (watch)'],
  ['secret', "Secret written (sandboxd's token)"],
  ['claim', 'PVC written'],
  ['policy', 'NetworkPolicy written'],
  ['pod', 'Pod written'],
  ['scheduled', 'Pod scheduled (nodeName)'],
  ['bound', 'PVC Bound (volume provisioned)'],
  ['podSandbox', 'Pod sandbox started (containerd: pause task)'],
  ['podIP', "Pod status: IP (the operator's sandboxd check starts)"],
  ['initStart', 'init container started (containerd task)'],
  ['initExit', 'init container exited (containerd task)'],
  ['mainStart', 'main container started (containerd task)'],
  ['initDone', 'Pod status: init container terminated'],
  ['mainRunning', 'Pod status: main container running'],
  ['ready', 'Pod Ready (kubelet probe)'],
  ['answer', "sandboxd's first answer (from the Pod's node)"],
  ['running', "Sandbox Running (svc's status, client's watch)"],
  ['output', 'first output of `echo hi` (exec)'],
] as const;

export type Step = (typeof STEPS)[number][0];

/** What the Tracer reads of each object it watches. */
export interface Traced {
  metadata?: {
    name?: string;
    labels?: Record<string, string>;
    ownerReferences?: { kind: string; name: string }[];
  };
  spec?: { nodeName?: string };
  status?: { phase?: string };
}

interface TaskEvent {
  at: number;
  topic: string;
  id: string;
  image?: string;
}

/** Watches a namespace (and a node's containerd, when given) and keeps each sandbox's steps. */
export class Tracer {
  readonly #marks = new Map<string, Map<Step, number>>();
  readonly #pods = new Map<string, V1Pod>();
  readonly #tasks: TaskEvent[] = [];
  readonly #sights: Sight[] = [];
  #ctr: ChildProcess | undefined;

  /**
   * `ownerOf`: whose an object is (a sandbox's name); by default svc's `svc.io/sandbox` label.
   * bench-peer's trace of the peer's namespace names its objects' owning Sandbox instead.
   */
  static async open(
    kc: KubeConfig,
    namespace: string,
    containerdSocket?: string,
    ownerOf: (o: Traced) => string | undefined = (o) => o.metadata?.labels?.[Labels.sandbox],
  ): Promise<Tracer> {
    const t = new Tracer();
    const ns = `/namespaces/${namespace}`;
    type Obj = Traced;
    const owner = ownerOf;
    const watch = async (path: string, on: (o: Obj) => void) =>
      t.#sights.push(await Sight.open<Obj>(kc, path, (type, o) => type !== 'DELETED' && on(o)));
    await watch(`/apis/${GROUP}/${VERSION}${ns}/sandboxes`, (o) => t.mark(o.metadata?.name, 'sandbox'));
    await watch(`/api/v1${ns}/secrets`, (o) => t.mark(owner(o), 'secret'));
    await watch(`/apis/networking.k8s.io/v1${ns}/networkpolicies`, (o) => t.mark(owner(o), 'policy'));
    await watch(`/api/v1${ns}/persistentvolumeclaims`, (o) => {
      t.mark(owner(o), 'claim');
      if (o.status?.phase === 'Bound') t.mark(owner(o), 'bound');
    });
    await watch(`/api/v1${ns}/pods`, (o) => {
      const name = owner(o);
      if (!name) return;
      const pod = o as V1Pod;
      t.#pods.set(name, pod);
      t.mark(name, 'pod');
      if (pod.spec?.nodeName) t.mark(name, 'scheduled');
      if (pod.status?.podIP) t.mark(name, 'podIP');
      const init = pod.status?.initContainerStatuses?.find((c) => c.name === SandboxPod.installContainer);
      if (init?.state?.terminated) t.mark(name, 'initDone');
      const main = pod.status?.containerStatuses?.find((c) => c.name === SandboxPod.container);
      if (main?.state?.running) t.mark(name, 'mainRunning');
      if (pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
        t.mark(name, 'ready');
    });
    if (containerdSocket) t.#containerd(containerdSocket);
    return t;
  }

  /** The first time `step` happened for sandbox `name` (ms since performance.timeOrigin). */
  mark(name: string | undefined, step: Step, at = performance.now()): void {
    if (!name) return;
    let m = this.#marks.get(name);
    if (!m) this.#marks.set(name, (m = new Map<Step, number>()));
    if (!m.has(step)) m.set(step, at);
  }

  /**
   * Sandbox `name`'s steps in ms from `t0` (its POST). containerd's events are matched by the
   * container ids in the Pod's status; the Pod sandbox's (pause) task by being the last pause
   * task started before the Pod's first container was created (creates are one at a time
   * here): the init container's, or the main container's when sandboxd needs no init
   * container (`sandboxdDelivery: csi` or `imageVolume`).
   */
  steps(name: string, t0: number): Partial<Record<Step, number>> {
    const out: Partial<Record<Step, number>> = {};
    const pod = this.#pods.get(name);
    const id = (s?: { containerID?: string }) => s?.containerID?.replace(/^[a-z]+:\/\//, '');
    const initId = id(
      pod?.status?.initContainerStatuses?.find((c) => c.name === SandboxPod.installContainer),
    );
    const mainId = id(pod?.status?.containerStatuses?.find((c) => c.name === SandboxPod.container));
    const task = (topic: string, cid?: string) =>
      cid ? this.#tasks.find((e) => e.topic === topic && e.id === cid)?.at : undefined;
    const marks = new Map(this.#marks.get(name));
    const put = (step: Step, at?: number) => at !== undefined && marks.set(step, at);
    put('initStart', task('/tasks/start', initId));
    put('initExit', task('/tasks/exit', initId));
    put('mainStart', task('/tasks/start', mainId));
    const created = (cid?: string) =>
      cid ? this.#tasks.find((e) => e.topic === '/containers/create' && e.id === cid)?.at : undefined;
    const firstCreated = initId ? created(initId) : created(mainId);
    if (firstCreated !== undefined) {
      const pauses = new Set(
        this.#tasks
          .filter((e) => e.topic === '/containers/create' && /pause/.test(e.image ?? ''))
          .map((e) => e.id),
      );
      put(
        'podSandbox',
        this.#tasks
          .filter((e) => e.topic === '/tasks/start' && pauses.has(e.id) && e.at <= firstCreated)
          .at(-1)?.at,
      );
    }
    for (const [step, at] of marks) out[step] = at - t0;
    return out;
  }

  stop(): void {
    for (const s of this.#sights) s.stop();
    this.#ctr?.kill();
  }

  /** Throws when a watch was lost (its steps would be missing, not late). */
  check(): void {
    for (const s of this.#sights) s.check();
  }

  #containerd(socket: string): void {
    // `ctr events` prints one line per event: `2026-11-26 18:50:00.123456789 +0000 UTC k8s.io /tasks/start {json}`.
    const ctr = spawn('ctr', ['--address', socket, 'events'], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.#ctr = ctr;
    createInterface({ input: ctr.stdout }).on('line', (line) => {
      const m = /^(\S+) (\S+)\.(\d+) \+0000 UTC k8s\.io (\S+) (\{.*\})$/.exec(line);
      if (!m) return;
      const [, date, time, frac, topic, json] = m;
      const epochMs = Date.parse(`${date}T${time}Z`) + Number(`0.${frac}`) * 1000;
      const body = JSON.parse(json!) as { id?: string; container_id?: string; image?: string };
      this.#tasks.push({
        at: epochMs - performance.timeOrigin,
        topic: topic!,
        id: body.container_id ?? body.id ?? '',
        image: body.image,
      });
    });
  }
}

/** The median of each step over the runs, as a table's rows: step, ms from POST, ms since the step before. */
export function traceTable(
  runs: Partial<Record<Step, number>>[],
): { step: Step; label: string; ms?: number }[] {
  return STEPS.map(([step, label]) => {
    const xs = runs.flatMap((r) => (r[step] === undefined ? [] : [r[step]]));
    return { step, label, ms: xs.length > 0 ? median(xs) : undefined };
  });
}

/**
 * A burst's steps: for each step, when the median sandbox and the last one reached it (ms
 * from the burst's start), and how many did. A burst is judged by its last sandbox; the
 * median shows whether the steps before it queue (the last far behind the median) or not.
 */
export function burstTable(
  runs: Partial<Record<Step, number>>[],
): { step: Step; label: string; median?: number; last?: number; n: number }[] {
  return STEPS.map(([step, label]) => {
    const xs = runs.flatMap((r) => (r[step] === undefined ? [] : [r[step]]));
    return {
      step,
      label,
      median: xs.length > 0 ? median(xs) : undefined,
      last: xs.length > 0 ? Math.max(...xs) : undefined,
      n: xs.length,
    };
  });
}
