import type { Candidate, NodeAbilities } from './check.ts';
import type { Policy } from './policy.ts';
import type { Violation } from './violations.ts';

/**
 * The RuntimeClass a sandbox runs under: its own `runtimeClassName`, else its template's,
 * else the policy's `defaultRuntimeClass`; undefined means the node's default runtime.
 * @example effectiveRuntimeClass({ defaultRuntimeClass: 'gvisor' }, {}) // 'gvisor'
 */
export function effectiveRuntimeClass(
  policy: Pick<Policy, 'defaultRuntimeClass'>,
  names: { sandbox?: string; template?: string },
): string | undefined {
  return names.sandbox ?? names.template ?? policy.defaultRuntimeClass;
}

/**
 * The isolation a sandbox asks for, judged at create: its effective runtime class must be in
 * `allowedRuntimeClasses` (when set; no runtime class is then refused too); a Sandbox may
 * pick its own runtime class only from that list, so it can never step down from its
 * template's (say from gvisor to the node's runc) where the policy does not say so; and
 * `hostUsers: false` needs nodes that offer user namespaces.
 */
export function checkIsolation(policy: Policy, c: Candidate, nodes: NodeAbilities): Violation[] {
  const v: Violation[] = [];
  const allowed = policy.allowedRuntimeClasses;
  const list = `[${(allowed ?? []).join(', ')}]`;
  const effective = effectiveRuntimeClass(policy, {
    sandbox: c.runtimeClassOverride,
    template: c.templateRuntimeClass,
  });
  if (c.runtimeClassOverride !== undefined && !allowed) {
    v.push({
      code: 'runtime_class_not_allowed',
      message: `a Sandbox may set runtimeClassName only when the policy lists allowedRuntimeClasses; "${c.runtimeClassOverride}" is not allowed`,
    });
  } else if (allowed && (effective === undefined || !allowed.includes(effective))) {
    const name = effective === undefined ? '(none: the node default)' : `"${effective}"`;
    v.push({
      code: 'runtime_class_not_allowed',
      message: `runtime class ${name} is not in allowedRuntimeClasses ${list}`,
    });
  }
  if (c.hostUsers === false && !nodes.userNamespaces) {
    v.push({
      code: 'user_namespaces_unavailable',
      message:
        'the template asks for hostUsers: false (a user namespace), but this cluster does not offer user namespaces (node.userNamespaces is off)',
    });
  }
  return v;
}
