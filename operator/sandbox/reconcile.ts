import { CoreV1Api, NetworkingV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { sandboxVerdict, type Policy, type Sandbox, type Stage } from '../../core/index.ts';
import { splitKey, type PolicyStore, type SandboxdLocator } from '../../kube/index.ts';
import { AgentConfigurer } from '../agent.ts';
import { SandboxPatcher } from '../sandbox-patch.ts';
import type { OperatorSettings } from '../settings.ts';
import type { Pass, SandboxCaches, SandboxDeps } from './context.ts';
import { eventRecorder } from './events.ts';
import { finalize } from './finalize.ts';
import { addFinalizer } from './finalizer.ts';
import { SandboxdReadiness } from './readiness.ts';
import { writeStatus } from './status.ts';
import { sandboxSteps } from './steps.ts';
import type { WarmClaimer } from '../warmpool/index.ts';

/** Stages at which the pass got as far as the sandbox Pod (`status.podName` names it). */
const WITH_POD = new Set<Stage['kind']>([
  'Waiting',
  'PodFailing',
  'Evicted',
  'PodEnded',
  'Installing',
  'Running',
]);

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
    const result = await sandboxSteps(pass);
    const stage: Stage = result.stage ?? { kind: 'Running' };
    const verdict = sandboxVerdict(stage, pass.sandbox.status?.phase);
    // After a warm-pool claim, the status goes on the Sandbox the claim wrote.
    const written = result.sandbox ? { ...pass, sandbox: result.sandbox } : pass;
    const hasPod = WITH_POD.has(stage.kind);
    await writeStatus(written, verdict, result.conditions ?? [], hasPod, result.status ?? {});
    return result.requeueMs;
  }
}

function passOf(d: SandboxDeps, sandbox: Sandbox, log: Logger): Pass {
  const { namespace, name } = sandbox.metadata as { namespace: string; name: string };
  const key = `${namespace}/${name}`;
  return { sandbox, namespace, name, key, log, d, after: [] };
}
