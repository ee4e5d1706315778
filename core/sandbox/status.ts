import { z } from 'zod';

export const SandboxPhase = z.enum(['Pending', 'Creating', 'Running', 'Stopped', 'Error']);
export type SandboxPhase = z.infer<typeof SandboxPhase>;

/** metav1.Condition, as controller-runtime writes it. */
export const Condition = z.object({
  type: z.string().min(1).max(316),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().max(1024),
  message: z.string().max(32768).default(''),
  lastTransitionTime: z.iso.datetime({ offset: true }),
  observedGeneration: z.int().min(0).optional(),
});
export type Condition = z.infer<typeof Condition>;

export const ForwardedPort = z
  .object({
    port: z.int().min(1).max(65535),
    protocol: z.string(),
    internalUrl: z.string(),
    previewUrl: z.string().optional(),
  })
  .meta({ id: 'ForwardedPort' });
export type ForwardedPort = z.infer<typeof ForwardedPort>;

export const AgentConfigureStatus = z.object({
  lastConfiguredAt: z.iso.datetime({ offset: true }).optional(),
  installCommandHash: z.string().optional(),
  entrypoint: z.array(z.string()).optional(),
  installExitCode: z.int().optional(),
  maxConcurrentInvokes: z.int().min(1).optional(),
});
export type AgentConfigureStatus = z.infer<typeof AgentConfigureStatus>;

/** `status` of a Sandbox: written by the operator through the status subresource only. */
export const SandboxStatus = z.object({
  phase: SandboxPhase.optional(),
  message: z.string().optional(),
  podName: z.string().optional(),
  observedGeneration: z.int().min(0).optional(),
  conditions: z
    .array(Condition)
    .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] })
    .optional(),
  clonedFrom: z.string().optional(),
  forwardedPorts: z.array(ForwardedPort).optional(),
  resolvedTemplate: z.string().optional(),
  agentConfigure: AgentConfigureStatus.optional(),
});
export type SandboxStatus = z.infer<typeof SandboxStatus>;
