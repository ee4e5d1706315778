import { z } from 'zod';
import { Argv, ComputeResources, Duration, EnvList, Quantity } from './primitives.ts';

/**
 * Egress a template's sandboxes get: `none` (DNS only), `internet` (public addresses,
 * not the cluster's private ranges) or `all`.
 */
export const Egress = z.enum(['none', 'internet', 'all']);

/** `spec` shared by SandboxTemplate (namespaced) and ClusterSandboxTemplate. */
export const SandboxTemplateSpec = z.object({
  image: z.string().min(1).max(512),
  command: Argv.optional(),
  args: Argv.optional(),
  env: EnvList.optional(),
  resources: ComputeResources.optional(),
  storage: z
    .object({
      size: Quantity.default('1Gi'),
      storageClassName: z.string().max(253).optional(),
    })
    .optional(),
  timeout: Duration.optional(),
  idleTimeout: Duration.optional(),
  network: z.object({ egress: Egress.default('internet') }).optional(),
  agent: z
    .object({
      maxConcurrentInvokes: z.int().min(1).max(1000).optional(),
      defaultInvokeTimeout: Duration.optional(),
    })
    .optional(),
});
export type SandboxTemplateSpec = z.infer<typeof SandboxTemplateSpec>;
