import type { V1PodSpec } from '@kubernetes/client-node';
import {
  effectiveRuntimeClass,
  resolvePolicy,
  type Policy,
  type Sandbox,
  type SandboxTemplateSpec,
} from '../../core/index.ts';
import type { PolicyStore } from '../../kube/index.ts';

/**
 * The template as the operator builds Pods from it: with the governance policy's
 * `defaultRuntimeClass` (the namespace's, else the cluster's) filled in when it names no
 * runtime class. Sandboxes and warm-pool members both go through here, so a member's Pod
 * and a sandbox's agree (and their fit with them) under the same policy.
 */
export function withPolicyDefaults(
  template: SandboxTemplateSpec,
  policies: Pick<PolicyStore<Policy>, 'cached'>,
  namespace: string,
): SandboxTemplateSpec {
  if (template.runtimeClassName !== undefined) return template;
  // A policy that does not parse throws: the Pod waits rather than start under a weaker runtime.
  const { cluster, namespace: own } = policies.cached(namespace);
  const runtimeClassName = effectiveRuntimeClass(resolvePolicy(cluster, own), {});
  return runtimeClassName === undefined ? template : { ...template, runtimeClassName };
}

/**
 * The Pod's isolation fields: the runtime class (the Sandbox's own, else the template's,
 * defaults already applied) and `hostUsers: false` when the template asks for a user
 * namespace. Set only when named, so Pods (and warm-pool fits) without them are unchanged.
 */
export function isolation(
  sandbox: Sandbox,
  template: SandboxTemplateSpec,
): Pick<V1PodSpec, 'runtimeClassName' | 'hostUsers'> {
  const runtimeClassName = sandbox.spec.runtimeClassName ?? template.runtimeClassName;
  return {
    ...(runtimeClassName !== undefined ? { runtimeClassName } : {}),
    ...(template.hostUsers === false ? { hostUsers: false } : {}),
  };
}
