import { z } from 'zod';
import { AllowedHosts } from '../egress/index.ts';
import { Argv, ComputeResources, Duration, EnvList, Quantity, RuntimeClassName } from './primitives.ts';
import { SandboxPod } from './resource.ts';

export const SandboxMode = z.enum(['code', 'agent']);
export type SandboxMode = z.infer<typeof SandboxMode>;

export const TemplateKind = z.enum(['ClusterSandboxTemplate', 'SandboxTemplate']);

export const TemplateRef = z.object({
  // A Kubernetes object name, checked by the apiserver too (the CRD's pattern), so a name with
  // control characters is never stored, nor copied into Events by any path (API or kubectl).
  name: z
    .string()
    .min(1)
    .max(253)
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/)
    .describe('Name of the template (a Kubernetes object name)'),
  kind: TemplateKind.default('ClusterSandboxTemplate').describe(
    'ClusterSandboxTemplate (cluster-wide, the default) or SandboxTemplate (in the sandbox namespace)',
  ),
});

/** `spec.harness.agent`: what configure installs and invoke runs. */
export const AgentHarness = z
  .object({
    entrypoint: Argv.optional().describe(
      'Command (argv) run on every invoke, with the request body on its stdin; configure sets it',
    ),
    installCommand: Argv.optional().describe('Command (argv) run once at configure time'),
    workingDir: z
      .string()
      .startsWith('/')
      .default('/workspace')
      .describe('Absolute working directory of the install command and the entrypoint'),
    env: EnvList.optional().describe('Environment of the install command and the entrypoint'),
    maxConcurrentInvokes: z
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe('Cap on parallel invokes of this sandbox; governance may lower it'),
    defaultInvokeTimeout: Duration.optional().describe(
      'Wall-clock cap of one invoke, such as 5m; 0 means none',
    ),
  })
  .describe('The agent harness: what configure installs and invoke runs (mode: agent)');
export type AgentHarness = z.infer<typeof AgentHarness>;

const SecretKeyName = z.string().min(1).max(253);

/**
 * Secrets the sandbox receives. Only names travel through the Sandbox; values are read by
 * the kubelet from the Secret, so they never appear in the CR, its status or events.
 */
export const Credentials = z
  .object({
    env: z
      .array(
        z.object({
          name: z
            .string()
            .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
            .describe('Name of the environment variable the sandbox sees'),
          secretName: SecretKeyName.describe('Secret in the sandbox namespace that holds the value'),
          key: SecretKeyName.describe('Key of the value in that Secret'),
        }),
      )
      .max(64)
      .optional()
      .describe('Environment variables whose values come from Secrets'),
    files: z
      .array(
        z.object({
          secretName: SecretKeyName.describe('Secret in the sandbox namespace whose keys become files'),
          mountPath: z.string().startsWith('/').describe('Absolute folder the files appear in, read-only'),
        }),
      )
      .max(16)
      .optional()
      .describe('Secrets mounted as files, one file per key'),
  })
  .describe(
    'Secrets the sandbox receives, by name only: the kubelet reads the values, so they never appear in the Sandbox, its status or events',
  );
export type Credentials = z.infer<typeof Credentials>;

export const PortProtocol = z.enum(['http']);

/**
 * A port a sandbox may forward: never sandboxd's own (reachable only with the sandbox's
 * token). The same rule holds in the API (zod) and in the CRD (CEL), so a Sandbox written
 * with kubectl is refused too; `POST …/ports` and the preview check the port the same way.
 */
export const ForwardablePort = z
  .int()
  .min(1)
  .max(65535)
  .refine((port) => port !== SandboxPod.port, `must not be ${SandboxPod.port}: it is sandboxd's port`)
  .meta({
    description: `Port the sandbox listens on; not ${SandboxPod.port}, sandboxd's`,
    'x-kubernetes-validations': [
      {
        rule: `self != ${SandboxPod.port}`,
        message: `must not be ${SandboxPod.port}: it is sandboxd's port`,
      },
    ],
  });

export const PortSpec = z.object({
  port: ForwardablePort,
  protocol: PortProtocol.default('http').describe('Protocol of the port; http is the only one'),
});
export type PortSpec = z.infer<typeof PortSpec>;

export const SandboxResources = ComputeResources.extend({
  storage: Quantity.optional().meta({ description: 'Size of the /workspace volume, such as 1Gi' }),
}).describe(
  "CPU and memory of the sandbox container and the size of its /workspace volume; each field set here wins over the template's",
);

const immutable = (field: string) => ({
  rule: `!has(oldSelf.${field}) || (has(self.${field}) && self.${field} == oldSelf.${field})`,
  message: `immutable_field: ${field} is immutable`,
  fieldPath: `.${field}`,
  reason: 'FieldValueForbidden',
});

/** `spec` of a Sandbox: what the user asks for. */
export const SandboxSpec = z
  .object({
    mode: SandboxMode.default('code').describe(
      'code: an interactive sandbox; agent: runs a configured entrypoint on demand (configure, invoke). Immutable',
    ),
    templateRef: TemplateRef.describe('The template the sandbox is made from. Immutable'),
    image: z
      .object({
        repository: z
          .string()
          .min(1)
          .max(512)
          .optional()
          .describe("Image to run instead of the template's; governance may restrict registries"),
      })
      .optional()
      .describe("Override of the template's image"),
    timeout: Duration.optional().describe(
      "Lifetime cap from the Pod's start, such as 8h; 0 means infinite. The template's when unset",
    ),
    idleTimeout: Duration.optional().describe(
      "The sandbox stops after this long without an API call, such as 30m. The template's when unset",
    ),
    createdBy: z
      .string()
      .max(512)
      .optional()
      .describe(
        'The user who created the sandbox, set from the authenticated user by the API and the webhook. Immutable',
      ),
    cloneFromSnapshot: z
      .string()
      .max(253)
      .optional()
      .describe('VolumeSnapshot a clone was hydrated from. Immutable'),
    stopped: z
      .boolean()
      .default(false)
      .describe('true stops the sandbox (its Pod goes, its /workspace stays); false starts it again'),
    resources: SandboxResources.optional(),
    env: EnvList.optional().describe("Environment variables, added to the template's (these win on a name)"),
    ports: z
      .array(PortSpec)
      .max(32)
      .meta({
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port'],
        description: 'Ports forwarded to a Service (and a preview URL when a preview domain is set)',
      })
      .optional(),
    credentials: Credentials.optional(),
    runtimeClassName: RuntimeClassName.optional().describe(
      "RuntimeClass of the sandbox's Pod instead of the template's; allowed only when it is in the governance policy's allowedRuntimeClasses. Immutable",
    ),
    network: z
      .object({
        allowedHosts: AllowedHosts.optional().describe(
          "Hosts this sandbox may reach, each inside an entry of its template's allowedHosts (the template's egress must be allowlist): a Sandbox narrows its template's list, never widens it. The template's list when unset",
        ),
      })
      .optional()
      .describe("This sandbox's egress within its template's"),
    harness: z
      .object({ agent: AgentHarness.optional() })
      .optional()
      .describe('Harnesses of the sandbox modes; agent applies to mode: agent'),
  })
  .meta({
    description: 'What the user asks for: the template, mode, limits, environment and ports of the sandbox',
    // Immutability lives in the schema so it holds for direct CR writes with no webhook.
    'x-kubernetes-validations': [
      'mode',
      'templateRef',
      'cloneFromSnapshot',
      'createdBy',
      'runtimeClassName',
    ].map(immutable),
  });
export type SandboxSpec = z.infer<typeof SandboxSpec>;
export type SandboxSpecInput = z.input<typeof SandboxSpec>;
