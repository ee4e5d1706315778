import { exceedsCap } from './duration.ts';
import type { Policy } from './policy.ts';
import { compareQuantities, parseQuantity } from './quantity.ts';
import { checkEgress } from './egress.ts';
import { checkIsolation } from './runtime.ts';
import type { Violation } from './violations.ts';
import { imageAllowed, parseTemplateLabel, templateAllowed, templateLabel } from './match.ts';

/** A sandbox about to be created, with template defaults already applied. */
export interface Candidate {
  mode: 'code' | 'agent';
  templateName: string;
  /** `templateRef.kind`; absent: ClusterSandboxTemplate, as in `templateRef`. */
  templateKind?: 'ClusterSandboxTemplate' | 'SandboxTemplate';
  /** `spec.image.repository`, only when it overrides the template's image. */
  imageOverride?: string;
  cpuLimit?: string | number;
  memoryLimit?: string | number;
  ephemeralStorageLimit?: string | number;
  storage?: string | number;
  /** Effective lifetime; absent or `0` is infinite. */
  timeout?: string;
  idleTimeout?: string;
  /** `spec.runtimeClassName` of the Sandbox itself (it overrides the template's). */
  runtimeClassOverride?: string;
  /** The template's `spec.runtimeClassName`. */
  templateRuntimeClass?: string;
  /** The template's `spec.hostUsers`. */
  hostUsers?: boolean;
  /** The template runs the sandbox's processes as root (`runAsUser: 0`). */
  runAsRoot?: boolean;
  /** The template's `network.egress`; absent: `internet`. */
  egress?: 'none' | 'internet' | 'all' | 'allowlist';
  /** The template's `network.allowedHosts`. */
  templateAllowedHosts?: string[];
  /** The Sandbox's own `network.allowedHosts`, which may only narrow the template's. */
  sandboxAllowedHosts?: string[];
}

/** What the cluster's nodes can do, as the installer says (`node.*` settings). */
export interface NodeAbilities {
  /** `node.userNamespaces`: Pods with `hostUsers: false` run (Kubernetes ≥ 1.33, containerd 2, runc ≥ 1.2). */
  userNamespaces?: boolean;
}

/** Existing sandboxes in the namespace, the new one not included. */
export interface Counts {
  byUser: number;
  total: number;
  agents: number;
}

/**
 * Whether a new sandbox of `mode` is limited by a count under `policy`, or would count
 * against a limit on others: only then does a create need the quota ledger's counts (and a
 * reservation). A code sandbox counts towards `maxSandboxesTotal` and `maxSandboxesPerUser`;
 * an agent sandbox towards those and `maxAgentSandboxes`.
 */
export function isCounted(policy: Policy, mode: 'code' | 'agent'): boolean {
  return (
    policy.maxSandboxesTotal !== undefined ||
    policy.maxSandboxesPerUser !== undefined ||
    (mode === 'agent' && policy.maxAgentSandboxes !== undefined)
  );
}

/**
 * Every create-time violation at once (never only the first), each with a stable code and
 * a message naming the limit and the value.
 */
export function checkCreate(
  policy: Policy,
  c: Candidate,
  counts: Counts,
  nodes: NodeAbilities = {},
): Violation[] {
  const v: Violation[] = [];
  const add = (code: Violation['code'], message: string) => v.push({ code, message });
  v.push(...checkIsolation(policy, c, nodes));
  v.push(...checkEgress(policy, c));
  const template = { kind: c.templateKind, name: c.templateName };
  if (policy.allowedTemplates && !templateAllowed(policy.allowedTemplates, template)) {
    add(
      'template_not_allowed',
      `template "${templateLabel(template)}" is not in allowedTemplates [${policy.allowedTemplates.join(', ')}]`,
    );
  }
  if (
    c.imageOverride !== undefined &&
    policy.approvedRegistries &&
    !imageAllowed(c.imageOverride, policy.approvedRegistries)
  ) {
    add(
      'image_registry_not_approved',
      `image "${c.imageOverride}" is not from an approved registry [${policy.approvedRegistries.join(', ')}]`,
    );
  }
  if (
    c.mode === 'agent' &&
    c.imageOverride !== undefined &&
    policy.allowedAgentImages &&
    !imageAllowed(c.imageOverride, policy.allowedAgentImages)
  ) {
    add(
      'agent_image_not_approved',
      `agent image "${c.imageOverride}" is not in allowedAgentImages [${policy.allowedAgentImages.join(', ')}]`,
    );
  }
  if (policy.maxSandboxesTotal !== undefined && counts.total >= policy.maxSandboxesTotal) {
    add(
      'namespace_quota_exceeded',
      `the namespace has ${counts.total} sandboxes; maxSandboxesTotal is ${policy.maxSandboxesTotal}`,
    );
  }
  if (policy.maxSandboxesPerUser !== undefined && counts.byUser >= policy.maxSandboxesPerUser) {
    add(
      'user_quota_exceeded',
      `you have ${counts.byUser} sandboxes in the namespace; maxSandboxesPerUser is ${policy.maxSandboxesPerUser}`,
    );
  }
  if (
    c.mode === 'agent' &&
    policy.maxAgentSandboxes !== undefined &&
    counts.agents >= policy.maxAgentSandboxes
  ) {
    add(
      'agent_sandbox_quota_exceeded',
      `the namespace has ${counts.agents} agent sandboxes; maxAgentSandboxes is ${policy.maxAgentSandboxes}`,
    );
  }
  if (c.runAsRoot && policy.allowRootSandboxes !== true) {
    add(
      'root_sandbox_not_allowed',
      `template "${templateLabel(template)}" runs as root (runAsUser: 0); policy allowRootSandboxes is not true`,
    );
  }
  over(c.cpuLimit, policy.maxCpu, () =>
    add('cpu_limit_exceeded', `CPU limit ${String(c.cpuLimit)} is above maxCpu ${String(policy.maxCpu)}`),
  );
  over(c.memoryLimit, policy.maxMemory, () =>
    add(
      'memory_limit_exceeded',
      `memory limit ${String(c.memoryLimit)} is above maxMemory ${String(policy.maxMemory)}`,
    ),
  );
  over(c.ephemeralStorageLimit, policy.maxEphemeralStorage, () =>
    add(
      'ephemeral_storage_limit_exceeded',
      `ephemeral-storage limit ${String(c.ephemeralStorageLimit)} is above maxEphemeralStorage ${String(policy.maxEphemeralStorage)}`,
    ),
  );
  over(c.storage, policy.maxStorage, () =>
    add(
      'storage_limit_exceeded',
      `storage ${String(c.storage)} is above maxStorage ${String(policy.maxStorage)}`,
    ),
  );
  if (policy.maxTimeout !== undefined && exceedsCap(c.timeout ?? '0', policy.maxTimeout)) {
    add('timeout_exceeded', `timeout ${describe(c.timeout)} is above maxTimeout ${policy.maxTimeout}`);
  }
  if (policy.maxIdleTimeout !== undefined && exceedsCap(c.idleTimeout ?? '0', policy.maxIdleTimeout)) {
    add(
      'idle_timeout_exceeded',
      `idleTimeout ${describe(c.idleTimeout)} is above maxIdleTimeout ${policy.maxIdleTimeout}`,
    );
  }
  return v;
}

/** Governance again at configure time: the template and agent image may have been disallowed since. */
export function checkConfigure(
  policy: Policy,
  s: { resolvedTemplate?: string; mode: string; imageOverride?: string },
): Violation[] {
  const v: Violation[] = [];
  if (
    policy.allowedTemplates &&
    s.resolvedTemplate !== undefined &&
    !templateAllowed(policy.allowedTemplates, parseTemplateLabel(s.resolvedTemplate))
  ) {
    v.push({
      code: 'template_not_allowed',
      message: `template "${templateLabel(parseTemplateLabel(s.resolvedTemplate))}" is no longer in allowedTemplates [${policy.allowedTemplates.join(', ')}]`,
    });
  }
  if (
    s.mode === 'agent' &&
    s.imageOverride !== undefined &&
    policy.allowedAgentImages &&
    !imageAllowed(s.imageOverride, policy.allowedAgentImages)
  ) {
    v.push({
      code: 'agent_image_not_approved',
      message: `agent image "${s.imageOverride}" is no longer in allowedAgentImages [${policy.allowedAgentImages.join(', ')}]`,
    });
  }
  return v;
}

/**
 * The invoke concurrency a sandbox gets: what it asks for (harness, else template, else 1),
 * silently lowered to `maxConcurrentInvokesPerSandbox`.
 */
export function resolveMaxConcurrentInvokes(policy: Policy, requested: number | undefined): number {
  const want = requested ?? 1;
  return policy.maxConcurrentInvokesPerSandbox === undefined
    ? want
    : Math.min(want, policy.maxConcurrentInvokesPerSandbox);
}

function over(
  value: string | number | undefined,
  cap: string | number | undefined,
  report: () => void,
): void {
  if (value === undefined || cap === undefined) return;
  if (compareQuantities(parseQuantity(value), parseQuantity(cap)) > 0) report();
}

const describe = (timeout: string | undefined) =>
  timeout === undefined || timeout === '0' ? '0 (infinite)' : timeout;
