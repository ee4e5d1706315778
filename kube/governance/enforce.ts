import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import {
  GROUP,
  VERSION,
  checkConfigure,
  checkCreate,
  isCounted,
  resolveMaxConcurrentInvokes,
  resolvePolicy,
  sandboxResources,
  type Candidate,
  type NodeAbilities,
  type Policy,
  type Sandbox,
  type SandboxSpec,
  type SandboxTemplateSpec,
  type Violation,
} from '../../core/index.ts';
import type { LedgerSnapshot, QuotaLedger } from '../quota/index.ts';
import type { PolicyStore } from './store.ts';

/**
 * Governance as the API and the webhook apply it: policies from the store, quotas through
 * the ledger, so both enforce the same rules with the same race-free counts.
 */
export class Governance {
  readonly store: PolicyStore<Policy>;
  readonly #ledger: QuotaLedger;
  readonly #custom: CustomObjectsApi;
  /** What the nodes can do (`node.*` settings): `hostUsers: false` needs user namespaces. */
  readonly nodes: NodeAbilities;

  constructor(kc: KubeConfig, store: PolicyStore<Policy>, ledger: QuotaLedger, nodes: NodeAbilities = {}) {
    this.store = store;
    this.#ledger = ledger;
    this.#custom = kc.makeApiClient(CustomObjectsApi);
    this.nodes = nodes;
  }

  /** The policy in force in `namespace` (cluster default overridden by the namespace). */
  async effective(namespace: string, maxAgeMs = 0): Promise<Policy> {
    const { cluster, namespace: own } = await this.store.forNamespace(namespace, maxAgeMs);
    return resolvePolicy(cluster, own);
  }

  /**
   * Everything `checkCreate` decides on, read at once: the policy (afresh), the template and
   * the quota ledger's state. A caller with its own reads to make starts this beside them.
   */
  async readForCreate(input: { namespace: string; spec: SandboxSpec }): Promise<CreateReads> {
    const settled = <T>(p: Promise<T>) => (p.catch(() => undefined), p);
    const policy = settled(this.effective(input.namespace));
    const template = settled(this.template(input.namespace, input.spec));
    // The ledger is read only when the policy counts sandboxes: as far as the watched policy
    // knows; should the fresh read say otherwise, the reservation reads it then.
    const snapshot = this.#countedAsWatched(input.namespace, input.spec.mode)
      ? settled(this.#ledger.snapshot(input.namespace))
      : undefined;
    return { policy: await policy, template: await template, snapshot: await snapshot };
  }

  /**
   * Create-time checks for a create or a clone. Returns every violation; when there is
   * none, the new name has been reserved against the quotas before the CR is written.
   */
  async checkCreate(input: CreateInput, reads?: CreateReads): Promise<Violation[]> {
    return (await this.decideCreate(input, reads)).violations;
  }

  /**
   * `checkCreate`, also saying whether a quota slot was reserved: only then has the creator
   * a reservation to release once the Sandbox is written (a policy without quotas reserves
   * nothing, and its creates need not touch the ledger at all).
   */
  async decideCreate(
    input: CreateInput,
    reads?: CreateReads,
  ): Promise<{ violations: Violation[]; reserved: boolean }> {
    const { policy, template, snapshot } = reads ?? (await this.readForCreate(input));
    const candidate = candidateOf(input.spec, template);
    // Nothing counted: no reservation to make (a quota set meanwhile counts this sandbox once
    // it exists; only creates already in flight when it was set can exceed it).
    if (!isCounted(policy, input.spec.mode))
      return {
        violations: checkCreate(policy, candidate, { total: 0, byUser: 0, agents: 0 }, this.nodes),
        reserved: false,
      };
    const refused = new Refused();
    try {
      await this.#ledger.reserve(
        {
          namespace: input.namespace,
          name: input.name,
          user: input.user,
          mode: input.spec.mode,
          ...(input.dryRun ? { dryRun: true } : {}),
          decide: (counts) => {
            refused.violations = checkCreate(policy, candidate, counts, this.nodes);
            if (refused.violations.length > 0) throw refused;
          },
        },
        snapshot,
      );
    } catch (err) {
      if (err === refused) return { violations: refused.violations, reserved: false };
      throw err;
    }
    return { violations: [], reserved: !input.dryRun };
  }

  /**
   * Update-time checks: the updated spec is judged like a create against the policy in
   * force, except the quotas (the sandbox exists and counts already; nothing is reserved).
   * Only what the update brings is refused: a violation the sandbox had before (a policy
   * tightened since it was created) does not block a write that leaves it as it was, such
   * as stopping it or adding a port; any changed value must be within policy.
   */
  async checkUpdate(input: {
    namespace: string;
    /** The spec before the update; undefined when it does not parse (then everything counts). */
    before: SandboxSpec | undefined;
    after: SandboxSpec;
  }): Promise<Violation[]> {
    const [policy, template] = await Promise.all([
      this.effective(input.namespace),
      this.template(input.namespace, input.after),
    ]);
    const { maxSandboxesTotal: _t, maxSandboxesPerUser: _u, maxAgentSandboxes: _a, ...limits } = policy;
    const none = { total: 0, byUser: 0, agents: 0 };
    const had = new Set(
      input.before
        ? checkCreate(limits, candidateOf(input.before, template), none, this.nodes).map(
            (v) => `${v.code}\n${v.message}`,
          )
        : [],
    );
    return checkCreate(limits, candidateOf(input.after, template), none, this.nodes).filter(
      (v) => !had.has(`${v.code}\n${v.message}`),
    );
  }

  /**
   * Ends the quota reservation `checkCreate` made for `name`, once the create has been
   * written or has failed: from then on the Sandbox counts itself (or nothing does), so
   * deleting it frees its slot at once instead of after the reservation's time-to-live.
   */
  release(namespace: string, name: string): Promise<void> {
    return this.#ledger.release(namespace, name);
  }

  /**
   * Configure-time re-check: the template and agent image may have been disallowed since.
   * Invokes pass a `maxAgeMs` so they do not read the ConfigMap every time.
   */
  async checkConfigure(sandbox: Sandbox, maxAgeMs = 0): Promise<Violation[]> {
    const policy = await this.effective(sandbox.metadata.namespace ?? '', maxAgeMs);
    return checkConfigure(policy, {
      resolvedTemplate: sandbox.status?.resolvedTemplate,
      mode: sandbox.spec.mode,
      imageOverride: sandbox.spec.image?.repository,
    });
  }

  /**
   * The invoke cap the operator records for `sandbox`: its own or its template's request,
   * clamped by `maxConcurrentInvokesPerSandbox`. The policy is read afresh now (so a PUT
   * through any replica a moment ago counts); the function answers for the policy in force
   * whenever it is called, so a wait on the operator follows a change made meanwhile.
   */
  async invokeCap(sandbox: Sandbox): Promise<() => number> {
    const namespace = sandbox.metadata.namespace ?? '';
    const [, template] = await Promise.all([
      this.store.forNamespace(namespace),
      this.template(namespace, sandbox.spec),
    ]);
    const requested =
      sandbox.spec.harness?.agent?.maxConcurrentInvokes ?? template?.agent?.maxConcurrentInvokes;
    const cap = () => {
      const { cluster, namespace: own } = this.store.cached(namespace);
      return resolveMaxConcurrentInvokes(resolvePolicy(cluster, own), requested);
    };
    let last = cap();
    return () => {
      try {
        last = cap();
      } catch {
        // A policy stored malformed meanwhile: the next check refuses; until then, the last cap.
      }
      return last;
    };
  }

  #countedAsWatched(namespace: string, mode: 'code' | 'agent'): boolean {
    try {
      const { cluster, namespace: own } = this.store.cached(namespace);
      return isCounted(resolvePolicy(cluster, own), mode);
    } catch {
      return true; // a malformed policy: the fresh read refuses, loudly
    }
  }

  /** The spec of the template `spec` names, or undefined when it does not exist. */
  async template(
    namespace: string,
    spec: Pick<SandboxSpec, 'templateRef'>,
  ): Promise<SandboxTemplateSpec | undefined> {
    const cluster = spec.templateRef.kind === 'ClusterSandboxTemplate';
    try {
      const obj = (
        cluster
          ? await this.#custom.getClusterCustomObject({
              group: GROUP,
              version: VERSION,
              plural: 'clustersandboxtemplates',
              name: spec.templateRef.name,
            })
          : await this.#custom.getNamespacedCustomObject({
              group: GROUP,
              version: VERSION,
              namespace,
              plural: 'sandboxtemplates',
              name: spec.templateRef.name,
            })
      ) as {
        spec: SandboxTemplateSpec;
      };
      return obj.spec;
    } catch (err) {
      if ((err as { code?: number }).code === 404) return undefined;
      throw err;
    }
  }
}

/**
 * What the sandbox will really get: its own values, else its template's (`0` = infinite),
 * and the container limits exactly as the operator writes them into the Pod
 * (`sandboxResources`), so governance judges the Pod's own limits, defaults included.
 */
export function candidateOf(spec: SandboxSpec, template: SandboxTemplateSpec | undefined): Candidate {
  const { limits } = sandboxResources(template, spec);
  const candidate: Candidate = {
    mode: spec.mode,
    templateName: spec.templateRef.name,
    templateKind: spec.templateRef.kind,
    timeout: spec.timeout ?? template?.timeout ?? '0',
    idleTimeout: spec.idleTimeout ?? template?.idleTimeout ?? '0',
    cpuLimit: limits.cpu,
    memoryLimit: limits.memory,
    ephemeralStorageLimit: limits['ephemeral-storage'],
  };
  const image = spec.image?.repository;
  if (image !== undefined) candidate.imageOverride = image;
  if (template?.runAsUser === 0) candidate.runAsRoot = true;
  const storage = spec.resources?.storage ?? template?.storage?.size;
  if (storage !== undefined) candidate.storage = storage;
  if (spec.runtimeClassName !== undefined) candidate.runtimeClassOverride = spec.runtimeClassName;
  if (template?.runtimeClassName !== undefined) candidate.templateRuntimeClass = template.runtimeClassName;
  if (template?.hostUsers !== undefined) candidate.hostUsers = template.hostUsers;
  if (template?.network?.egress !== undefined) candidate.egress = template.network.egress;
  if (template?.network?.allowedHosts !== undefined)
    candidate.templateAllowedHosts = template.network.allowedHosts;
  if (spec.network?.allowedHosts !== undefined) candidate.sandboxAllowedHosts = spec.network.allowedHosts;
  return candidate;
}

/** A create or a clone, as `Governance.checkCreate` judges it. */
export interface CreateInput {
  user: string;
  namespace: string;
  name: string;
  spec: SandboxSpec;
  /** A dry run: judged with the same counts, but no quota is reserved. */
  dryRun?: boolean;
}

/** What a create is decided on (see `Governance.readForCreate`). */
export interface CreateReads {
  policy: Policy;
  template: SandboxTemplateSpec | undefined;
  /** Read when the watched policy counts sandboxes. */
  snapshot: LedgerSnapshot | undefined;
}

/** Thrown out of the ledger's decision to stop the reservation, carrying why. */
class Refused extends Error {
  violations: Violation[] = [];
}
