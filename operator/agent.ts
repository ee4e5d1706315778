import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  Annotations,
  ExitEvent,
  filesDigest,
  installCommandHash,
  installRunId,
  resolveMaxConcurrentInvokes,
  resolvePolicy,
  type AgentConfigureStatus,
  type Policy,
  type Sandbox,
  type SandboxTemplateSpec,
} from '../core/index.ts';
import type { PolicyStore, SandboxdClient, SandboxdLocator } from '../kube/index.ts';
import { SandboxPatcher } from './sandbox-patch.ts';

/** How old a governance policy read an agent pass may use. */
const POLICY_MAX_AGE_MS = 5_000;

export interface AgentDeps {
  kc: KubeConfig;
  policies: PolicyStore<Policy>;
  locator: SandboxdLocator;
  now: () => Date;
  event: (
    log: Logger,
    sandbox: Sandbox,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ) => Promise<void>;
}

/**
 * `status.agentConfigure`, owned here: a running agent sandbox whose desired harness
 * (entrypoint, install command, and the digest of the files the API wrote) hashes to
 * something the status does not show yet gets its install run once through sandboxd.
 * Installs run beside the reconcile, not inside it, so a long install never holds up stop,
 * ports or status; a replica that restarts mid-install finds the run in sandboxd by its id
 * and waits for it instead of starting it twice.
 */
export class AgentConfigurer {
  readonly #d: AgentDeps;
  readonly #sandboxes: SandboxPatcher;
  /** Installs under way, by sandbox key → hash. */
  readonly #installs = new Map<string, string>();
  /**
   * The hash each sandbox's last install finished with. The informer may still show the
   * older status for a moment after the write; this keeps that moment from installing twice.
   */
  readonly #finished = new Map<string, string>();
  /** The cap last pushed to each sandbox's sandboxd, with the Pod and restart count it reached. */
  readonly #pushed = new Map<string, string>();

  constructor(deps: AgentDeps) {
    this.#d = deps;
    this.#sandboxes = new SandboxPatcher(deps.kc);
  }

  /**
   * One pass for a Running sandbox; returns a requeue delay while an install is under way.
   * `log` is the reconcile's logger: an install it starts logs with the same key and id.
   */
  async reconcile(
    log: Logger,
    sandbox: Sandbox,
    template: SandboxTemplateSpec,
    pod: V1Pod,
  ): Promise<number | undefined> {
    const agent = sandbox.spec.harness?.agent;
    if (sandbox.spec.mode !== 'agent' || !agent?.entrypoint?.length) return undefined;
    const { namespace, name } = sandbox.metadata as { namespace: string; name: string };
    const key = `${namespace}/${name}`;
    // Every status change of a running sandbox reconciles it: a policy read a few seconds old
    // keeps that from being a ConfigMap GET each time.
    const { cluster, namespace: own } = await this.#d.policies.forNamespace(namespace, POLICY_MAX_AGE_MS);
    const max = resolveMaxConcurrentInvokes(
      resolvePolicy(cluster, own),
      agent.maxConcurrentInvokes ?? template.agent?.maxConcurrentInvokes,
    );
    const digest = sandbox.metadata.annotations?.[Annotations.configureFiles] ?? filesDigest([]);
    const hash = installCommandHash(agent.installCommand, digest);
    const current = sandbox.status?.agentConfigure;
    // The Pod from the informer: its address needs no read.
    const client = () => this.#d.locator.forPod(pod);

    if (current?.installCommandHash !== hash) {
      // Under way (this hash or an older one, which finishes first), or just written.
      if (this.#installs.has(key) || this.#finished.get(key) === hash) return 2_000;
      this.#installs.set(key, hash);
      log.info({ installCommandHash: hash }, 'agent install starting');
      void client()
        .then((sandboxd) => this.#install(log, sandbox, sandboxd, hash, max))
        .then(() => this.#finished.set(key, hash))
        .catch((err: unknown) => log.error({ err, installCommandHash: hash }, 'agent install failed'))
        .finally(() => this.#installs.delete(key));
      return 2_000;
    }
    this.#finished.delete(key); // the cache has caught up
    // sandboxd starts with the cap its Pod was created with; a restarted sandboxd or a
    // changed policy is corrected here, once per change rather than on every pass, and
    // before the status says so: once `maxConcurrentInvokes` shows a cap, sandboxd holds it.
    const restarts = pod.status?.containerStatuses?.reduce((n, c) => n + c.restartCount, 0) ?? 0;
    const pushed = `${pod.metadata?.uid}/${restarts}/${max}`;
    if (this.#pushed.get(key) !== pushed) {
      await (await client()).setMaxConcurrentInvokes(max);
      this.#pushed.set(key, pushed);
    }
    if (
      JSON.stringify(current.entrypoint) !== JSON.stringify(agent.entrypoint) ||
      current.maxConcurrentInvokes !== max
    ) {
      await this.#write(sandbox, {
        ...current,
        lastConfiguredAt: this.#d.now().toISOString(),
        entrypoint: agent.entrypoint,
        maxConcurrentInvokes: max,
      });
    }
    return undefined;
  }

  async #install(
    log: Logger,
    sandbox: Sandbox,
    client: SandboxdClient,
    hash: string,
    max: number,
  ): Promise<void> {
    const agent = sandbox.spec.harness!.agent!;
    let installExitCode = 0;
    if (agent.installCommand?.length) {
      const runId = installRunId(hash);
      const spec = {
        runId,
        kind: 'install' as const,
        argv: agent.installCommand,
        cwd: agent.workingDir,
        env: Object.fromEntries((agent.env ?? []).map((e) => [e.name, e.value])),
      };
      let res = await client.run(spec);
      if (res.status === 409) res = await client.attach(runId);
      if (res.status !== 200)
        throw new Error(`sandboxd refused the install: ${res.status} ${JSON.stringify(res.body)}`);
      let exit: ExitEvent | undefined;
      for await (const m of res.events) if (m.event === 'exit') exit = ExitEvent.parse(JSON.parse(m.data));
      if (!exit) throw new Error('the install stream ended without an exit event');
      installExitCode = exit.exitCode;
      await this.#d.event(
        log,
        sandbox,
        installExitCode === 0 ? 'Normal' : 'Warning',
        installExitCode === 0 ? 'AgentInstallSucceeded' : 'AgentInstallFailed',
        `install command exited with ${installExitCode} after ${exit.durationMs} ms`,
      );
    }
    await this.#write(sandbox, {
      lastConfiguredAt: this.#d.now().toISOString(),
      installCommandHash: hash,
      entrypoint: agent.entrypoint,
      installExitCode,
      maxConcurrentInvokes: max,
    });
    await client.setMaxConcurrentInvokes(max);
    // The hash and exit code only: argv, env and output stay out of the logs.
    log.info({ installCommandHash: hash, installExitCode }, 'agent install recorded');
  }

  async #write(sandbox: Sandbox, agentConfigure: AgentConfigureStatus): Promise<void> {
    await this.#sandboxes.patchStatus(sandbox, { agentConfigure });
  }
}
