import { CoreV1Api, NetworkingV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  sandboxVerdict,
  type Policy,
  type Sandbox,
  type Stage,
  type StepCondition,
} from '../../core/index.ts';
import { splitKey, type PolicyStore, type SandboxdLocator } from '../../kube/index.ts';
import { AgentConfigurer } from '../agent.ts';
import { SandboxPatcher } from '../sandbox-patch.ts';
import type { OperatorSettings } from '../settings.ts';
import type { Pass, SandboxCaches, SandboxDeps, Step, StepResult } from './context.ts';
import { runStep } from './conflict.ts';
import { eventRecorder } from './events.ts';
import { finalize } from './finalize.ts';
import { addFinalizer } from './finalizer.ts';
import { checkLifetime, stopIfStopped } from './lifetime.ts';
import { ensureNetworkPolicy } from './network-policy.ts';
import { ensurePod } from './pod.ts';
import { ensurePorts } from './ports.ts';
import { SandboxdReadiness } from './readiness.ts';
import { whileRunning } from './running.ts';
import { writeStatus } from './status.ts';
import { resolveTemplate } from './template.ts';
import { ensureToken } from './token.ts';
import { ensureVolume } from './volume.ts';
import { claimWarmMember, type WarmClaimer } from '../warmpool/index.ts';

/**
 * The steps of one pass, in order. Each reads the caches, writes only what differs, and
 * says its conditions and when to look again; the first that returns a stage ends the pass.
 * The steps of a group are independent of each other and run together (their writes are
 * the requests a new sandbox waits on). Every step is idempotent (create when missing, 409
 * means done), so a restart mid-way never duplicates anything.
 */
export const SANDBOX_STEPS: readonly (Step | readonly Step[])[] = [
  resolveTemplate,
  [
    ensurePorts,
    // A warm member, when one may be claimed, is taken only once the sandbox's
    // NetworkPolicy exists, so the running Pod that leaves the pool's policy is under its
    // sandbox's at once, never under none. A cold start writes its objects beside the policy.
    (pass) =>
      pass.d.warm?.mayTake(pass.sandbox)
        ? inOrder(ensureNetworkPolicy, workload)(pass)
        : together(ensureNetworkPolicy, workload)(pass),
  ],
  checkLifetime,
  stopIfStopped,
  ensurePod,
  whileRunning,
];

/**
 * Where the workload comes from: the token Secret and the workspace claim, then (after the
 * lifetime and stop checks) the Pod. A warm pool's ready member, when one is claimed, brings
 * all three, so they are named only once the claim has decided.
 */
const workload: Step = inOrder(claimWarmMember, together(ensureToken, ensureVolume));

/** Steps that depend on each other, as one step: in order, until one ends the pass. */
function inOrder(...steps: Step[]): Step {
  return async (pass) => {
    const results: StepResult[] = [];
    for (const step of steps) {
      const r = await runStep(step, pass);
      results.push(r);
      if (r.stage) break;
    }
    return merged(results);
  };
}

/** Independent steps, as one step: together; the first stage among them ends the pass. */
function together(...steps: Step[]): Step {
  return async (pass) => merged(await Promise.all(steps.map((step) => runStep(step, pass))));
}

function merged(results: StepResult[]): StepResult {
  const requeues = results.flatMap((r) => (r.requeueMs === undefined ? [] : [r.requeueMs]));
  const stage = results.find((r) => r.stage)?.stage;
  return {
    conditions: results.flatMap((r) => r.conditions ?? []),
    ...(requeues.length > 0 ? { requeueMs: Math.min(...requeues) } : {}),
    ...(stage ? { stage } : {}),
  };
}

/** Stages at which the pass got as far as the sandbox Pod (`status.podName` names it). */
const WITH_POD = new Set<Stage['kind']>(['Waiting', 'PodFailing', 'Evicted', 'PodEnded', 'Running']);

export interface SandboxReconcilerOptions {
  kc: KubeConfig;
  settings: OperatorSettings;
  caches: SandboxCaches;
  policies: PolicyStore<Policy>;
  locator: SandboxdLocator;
  warm?: WarmClaimer;
  /** Reconciles a sandbox soon (its controller's `enqueue`): when sandboxd answers. */
  wake: (key: string) => void;
  logger: Logger;
  now?: () => Date;
}

/** The Sandbox controller's reconcile: the steps above, then the status they add up to. */
export class SandboxReconciler {
  readonly #d: SandboxDeps;

  constructor(o: SandboxReconcilerOptions) {
    const now = o.now ?? (() => new Date());
    const core = o.kc.makeApiClient(CoreV1Api);
    const event = eventRecorder(core, now);
    const agent = new AgentConfigurer({
      kc: o.kc,
      policies: o.policies,
      locator: o.locator,
      now,
      event: (log, sandbox, type, reason, message) =>
        event(passOf(this.#d, sandbox, log), type, reason, message),
    });
    this.#d = {
      core,
      net: o.kc.makeApiClient(NetworkingV1Api),
      patcher: new SandboxPatcher(o.kc),
      caches: o.caches,
      settings: o.settings,
      policies: o.policies,
      locator: o.locator,
      warm: o.warm,
      now,
      event,
      readiness: new SandboxdReadiness({ locator: o.locator, wake: o.wake, logger: o.logger }),
      written: new Map(),
      agent: (pass, template, pod) => agent.reconcile(pass.log, pass.sandbox, template, pod),
    };
  }

  /** One pass; `log` is the pass's own logger (it carries the key), used for all it logs. */
  reconcile = async (key: string, log: Logger): Promise<number | void> => {
    const { namespace, name } = splitKey(key);
    const cached = this.#d.caches.sandboxes.get(name, namespace) as unknown as Sandbox | undefined;
    if (!cached) {
      this.#d.readiness.forget(key);
      this.#d.written.delete(key);
      return;
    }
    if (cached.metadata.deletionTimestamp) return finalize(passOf(this.#d, cached, log));
    const sandbox = await addFinalizer(passOf(this.#d, cached, log));
    const pass = passOf(this.#d, sandbox, log);
    try {
      return await this.#run(pass);
    } finally {
      await Promise.all(pass.after.map((work) => work()));
    }
  };

  /** The steps of one pass, then the status they add up to; the requeue they ask for. */
  async #run(pass: Pass): Promise<number | undefined> {
    const { sandbox } = pass;
    const conditions: StepCondition[] = [];
    const requeues: number[] = [];
    let stage: Stage = { kind: 'Running' };
    for (const entry of SANDBOX_STEPS) {
      const group = typeof entry === 'function' ? [entry] : entry;
      const results = await Promise.all(group.map((step) => runStep(step, pass)));
      for (const result of results) {
        conditions.push(...(result.conditions ?? []));
        if (result.requeueMs !== undefined) requeues.push(result.requeueMs);
      }
      const ended = results.find((r) => r.stage)?.stage;
      if (ended) {
        stage = ended;
        break;
      }
    }
    const verdict = sandboxVerdict(stage, sandbox.status?.phase);
    await writeStatus(pass, verdict, conditions, WITH_POD.has(stage.kind));
    return requeues.length > 0 ? Math.min(...requeues) : undefined;
  }
}

function passOf(d: SandboxDeps, sandbox: Sandbox, log: Logger): Pass {
  const { namespace, name } = sandbox.metadata as { namespace: string; name: string };
  const key = `${namespace}/${name}`;
  return { sandbox, namespace, name, key, log, d, after: [] };
}
