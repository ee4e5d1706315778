import { z } from 'zod';

export const SandboxPhase = z.enum(['Pending', 'Creating', 'Running', 'Stopped', 'Error']);
export type SandboxPhase = z.infer<typeof SandboxPhase>;

/** metav1.Condition, as controller-runtime writes it. */
export const Condition = z.object({
  type: z
    .string()
    .min(1)
    .max(316)
    .describe('Kind of the condition: Ready, TemplateResolved, VolumeReady or Stopped'),
  status: z
    .enum(['True', 'False', 'Unknown'])
    .describe('Whether the condition holds: True, False or Unknown'),
  reason: z.string().max(1024).describe('Why the condition has its status, in CamelCase, such as PodReady'),
  message: z.string().max(32768).default('').describe('The reason for people to read'),
  lastTransitionTime: z.iso
    .datetime({ offset: true })
    .describe('When the status of the condition last changed (RFC 3339)'),
  observedGeneration: z
    .int()
    .min(0)
    .optional()
    .describe('metadata.generation of the Sandbox the condition was set from'),
});
export type Condition = z.infer<typeof Condition>;

export const ForwardedPort = z
  .object({
    port: z.int().min(1).max(65535).describe('Port the sandbox listens on'),
    protocol: z.string().describe('Protocol of the port: http'),
    internalUrl: z
      .string()
      .describe('URL inside the cluster: http://pf-<sandbox>-<port>.<namespace>.svc.cluster.local:<port>'),
    previewUrl: z
      .string()
      .optional()
      .describe(
        'Public URL, https://sandbox-<sandbox>-<port>.<namespace>.<preview domain>/, when a preview domain is set',
      ),
  })
  .meta({ id: 'ForwardedPort', description: 'A forwarded port of a sandbox and where to reach it' });
export type ForwardedPort = z.infer<typeof ForwardedPort>;

export const AgentConfigureStatus = z
  .object({
    lastConfiguredAt: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('When the last configure finished (RFC 3339)'),
    installCommandHash: z
      .string()
      .optional()
      .describe('Digest of the install command and files of the last configure; the same again is a no-op'),
    entrypoint: z.array(z.string()).optional().describe('Command (argv) that invoke runs, as configured'),
    installExitCode: z.int().optional().describe('Exit code of the install command of the last configure'),
    maxConcurrentInvokes: z
      .int()
      .min(1)
      .optional()
      .describe('Cap on parallel invokes in force, already lowered by governance'),
  })
  .describe('What the last configure of an agent sandbox left');
export type AgentConfigureStatus = z.infer<typeof AgentConfigureStatus>;

/** What keeps a sandbox active for idleTimeout (see `sandboxd/internal/activity/activity.go`). */
export const ActiveReason = z
  .enum(['api', 'request', 'exec', 'invoke', 'configure', 'terminal', 'cpu'])
  .describe(
    'api: an API call lately; request: a call to its sandboxd in flight; exec, invoke, configure: such a run alive; terminal: a terminal open; cpu: CPU above idle.cpuThreshold',
  );
export type ActiveReason = z.infer<typeof ActiveReason>;

/** `status` of a Sandbox: written by the operator through the status subresource only. */
export const SandboxStatus = z
  .object({
    phase: SandboxPhase.optional().describe('Pending, Creating, Running, Stopped or Error'),
    message: z.string().optional().describe('What the sandbox is doing or why it failed, for people to read'),
    podName: z.string().optional().describe('Name of the sandbox Pod'),
    observedGeneration: z
      .int()
      .min(0)
      .optional()
      .describe('metadata.generation of the Sandbox the operator last acted on'),
    conditions: z
      .array(Condition)
      .meta({
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
        description: 'Conditions of the sandbox, one per type (Ready tells whether sandboxd answers)',
      })
      .optional(),
    clonedFrom: z.string().optional().describe('Name of the source sandbox, on a clone'),
    forwardedPorts: z.array(ForwardedPort).optional().describe('One entry per forwarded port'),
    resolvedTemplate: z
      .string()
      .optional()
      .describe('The template the sandbox resolved to, as <kind>/<name>'),
    agentConfigure: AgentConfigureStatus.optional(),
    lastActivityAt: z
      .string()
      .optional()
      .describe('When the sandbox was last seen active, for idleTimeout (RFC 3339)'),
    activeReasons: z
      .array(ActiveReason)
      .optional()
      .describe('Why the sandbox was active when last looked at; empty when it was idle'),
  })
  .describe('What the operator observed; written through the status subresource only');
export type SandboxStatus = z.infer<typeof SandboxStatus>;
