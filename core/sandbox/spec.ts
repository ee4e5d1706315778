import { z } from 'zod';
import { Argv, ComputeResources, Duration, EnvList, Quantity } from './primitives.ts';

export const SandboxMode = z.enum(['code', 'agent']);
export type SandboxMode = z.infer<typeof SandboxMode>;

export const TemplateKind = z.enum(['ClusterSandboxTemplate', 'SandboxTemplate']);

export const TemplateRef = z.object({
  name: z.string().min(1).max(253),
  kind: TemplateKind.default('ClusterSandboxTemplate'),
});

/** `spec.harness.agent`: what configure installs and invoke runs. */
export const AgentHarness = z.object({
  entrypoint: Argv.optional(),
  installCommand: Argv.optional(),
  workingDir: z.string().startsWith('/').default('/workspace'),
  env: EnvList.optional(),
  maxConcurrentInvokes: z.int().min(1).max(1000).optional(),
  defaultInvokeTimeout: Duration.optional(),
});
export type AgentHarness = z.infer<typeof AgentHarness>;

const SecretKeyName = z.string().min(1).max(253);

/**
 * Secrets the sandbox receives. Only names travel through the Sandbox; values are read by
 * the kubelet from the Secret, so they never appear in the CR, its status or events.
 */
export const Credentials = z.object({
  env: z
    .array(
      z.object({
        name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
        secretName: SecretKeyName,
        key: SecretKeyName,
      }),
    )
    .max(64)
    .optional(),
  files: z
    .array(
      z.object({
        secretName: SecretKeyName,
        mountPath: z.string().startsWith('/'),
      }),
    )
    .max(16)
    .optional(),
});
export type Credentials = z.infer<typeof Credentials>;

export const PortProtocol = z.enum(['http']);

export const PortSpec = z.object({
  port: z.int().min(1).max(65535),
  protocol: PortProtocol.default('http'),
});
export type PortSpec = z.infer<typeof PortSpec>;

export const SandboxResources = ComputeResources.extend({
  storage: Quantity.optional().meta({ description: 'Size of the /workspace volume' }),
});

const immutable = (field: string) => ({
  rule: `!has(oldSelf.${field}) || (has(self.${field}) && self.${field} == oldSelf.${field})`,
  message: `immutable_field: ${field} is immutable`,
  fieldPath: `.${field}`,
  reason: 'FieldValueForbidden',
});

/** `spec` of a Sandbox: what the user asks for. */
export const SandboxSpec = z
  .object({
    mode: SandboxMode.default('code'),
    templateRef: TemplateRef,
    image: z.object({ repository: z.string().min(1).max(512).optional() }).optional(),
    timeout: Duration.optional(),
    idleTimeout: Duration.optional(),
    createdBy: z.string().max(512).optional(),
    cloneFromSnapshot: z.string().max(253).optional(),
    stopped: z.boolean().default(false),
    resources: SandboxResources.optional(),
    env: EnvList.optional(),
    ports: z
      .array(PortSpec)
      .max(32)
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port'] })
      .optional(),
    credentials: Credentials.optional(),
    harness: z.object({ agent: AgentHarness.optional() }).optional(),
  })
  .meta({
    // Immutability lives in the schema so it holds for direct CR writes with no webhook.
    'x-kubernetes-validations': ['mode', 'templateRef', 'cloneFromSnapshot', 'createdBy'].map(immutable),
  });
export type SandboxSpec = z.infer<typeof SandboxSpec>;
export type SandboxSpecInput = z.input<typeof SandboxSpec>;
