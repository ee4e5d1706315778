import { z } from 'zod';
import { AllowedHosts } from '../egress/index.ts';
import { isDuration } from './duration.ts';
import { TEMPLATE_ENTRY } from './match.ts';
import { isQuantity } from './quantity.ts';

const count = z.int().min(0);
const quantity = z
  .union([z.int(), z.string()])
  .refine(isQuantity, 'must be a Kubernetes quantity such as 500m or 2Gi');
const duration = z.string().refine(isDuration, 'must be a duration such as 90s or 1h30m (0 = infinite)');
const prefixes = z.array(z.string().min(1)).max(256);
const runtimeClass = z
  .string()
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, 'must be a RuntimeClass name');

/**
 * A governance policy: the cluster default or a namespace override. Every field is
 * optional; an unset field changes nothing. Unknown fields are refused, so a typo is a 400,
 * not a limit silently ignored.
 */
export const Policy = z
  .strictObject({
    maxSandboxesPerUser: count.optional(),
    maxSandboxesTotal: count.optional(),
    maxCpu: quantity.optional(),
    maxMemory: quantity.optional(),
    maxStorage: quantity.optional(),
    maxEphemeralStorage: quantity.optional(),
    maxTimeout: duration.optional(),
    maxIdleTimeout: duration.optional(),
    allowedTemplates: z
      .array(
        z
          .string()
          .max(300)
          .regex(
            TEMPLATE_ENTRY,
            'must be a template name, or <kind>/<name> with kind SandboxTemplate or ClusterSandboxTemplate',
          ),
      )
      .max(256)
      .optional(),
    approvedRegistries: prefixes.optional(),
    maxAgentSandboxes: count.optional(),
    allowedAgentImages: prefixes.optional(),
    maxConcurrentInvokesPerSandbox: z.int().min(1).optional(),
    /**
     * Keep a clone's VolumeSnapshot after the clone's workspace is hydrated from it. Unset or
     * false: the operator deletes it then, so no copy of the source's workspace lingers.
     */
    keepCloneSnapshots: z.boolean().optional(),
    /**
     * RuntimeClasses a sandbox may run under (its effective one: the Sandbox's, else the
     * template's, else `defaultRuntimeClass`). Set, a sandbox with none is refused, and a
     * Sandbox may name its own runtime class only from this list.
     */
    allowedRuntimeClasses: z.array(runtimeClass).max(64).optional(),
    /** RuntimeClass a sandbox gets when neither it nor its template names one. */
    defaultRuntimeClass: runtimeClass.optional(),
    /**
     * Let a template run its sandboxes' processes as root (`runAsUser: 0`). Unset or false:
     * a sandbox of such a template is refused (`root_sandbox_not_allowed`).
     */
    allowRootSandboxes: z.boolean().optional(),
    /**
     * The hosts sandboxes of the namespace may ever reach, a ceiling over templates and
     * Sandboxes: set, a sandbox whose effective `allowedHosts` has an entry outside it, or
     * whose template's egress is `internet` or `all`, is refused (`egress_host_not_allowed`).
     */
    allowedEgressHosts: AllowedHosts.optional(),
  })
  .meta({ id: 'Policy' });
export type Policy = z.infer<typeof Policy>;

const FIELDS = Object.keys(Policy.shape) as (keyof Policy)[];

/**
 * The policy in force for a namespace: the cluster default, overridden field by field by
 * the namespace. An empty namespace field (unset, `""` or `[]`) falls through.
 * @example resolvePolicy({ maxCpu: '2' }, { maxCpu: '1', allowedTemplates: [] }) // { maxCpu: '1' }
 */
export function resolvePolicy(cluster: Policy | undefined, namespace: Policy | undefined): Policy {
  const resolved: Record<string, unknown> = {};
  for (const field of FIELDS) {
    const own = namespace?.[field];
    const value = isEmpty(own) ? cluster?.[field] : own;
    if (!isEmpty(value)) resolved[field] = value;
  }
  return resolved;
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
}
