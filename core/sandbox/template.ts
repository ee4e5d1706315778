import { z } from 'zod';
import { AllowedHosts } from '../egress/index.ts';
import { Argv, ComputeResources, Duration, EnvList, Quantity, RuntimeClassName } from './primitives.ts';

/**
 * Egress a template's sandboxes get: `none` (DNS only), `internet` (public addresses,
 * not the cluster's private ranges), `all`, or `allowlist` (only the host names of
 * `allowedHosts`, through the egress gateway).
 */
export const Egress = z.enum(['none', 'internet', 'all', 'allowlist']);
export type Egress = z.infer<typeof Egress>;

/** The user sandbox processes run as unless the template names one: never root by default. */
export const DEFAULT_RUN_AS = 1000;

/** `spec` shared by SandboxTemplate (namespaced) and ClusterSandboxTemplate. */
export const SandboxTemplateSpec = z
  .object({
    image: z.string().min(1).max(512).describe('Image the sandboxes run, such as debian:bookworm'),
    command: Argv.optional().describe(
      'Command (argv) sandboxd starts in each sandbox; none when unset, since sandboxd replaces the image entrypoint',
    ),
    args: Argv.optional().describe('Arguments appended to command'),
    env: EnvList.optional().describe('Environment variables of every sandbox (a Sandbox may add to them)'),
    resources: ComputeResources.optional(),
    runAsUser: z
      .int()
      .min(0)
      .max(2147483647)
      .optional()
      .describe(
        'User (uid) every process of the sandbox runs as: the command, exec, terminals, installs and invokes; 1000 when unset; 0 (root) only where policy allowRootSandboxes allows it',
      ),
    runAsGroup: z
      .int()
      .min(0)
      .max(2147483647)
      .optional()
      .describe('Group (gid) of those processes; runAsUser when unset'),
    storage: z
      .object({
        size: Quantity.default('1Gi').describe('Size of the /workspace volume, such as 1Gi'),
        storageClassName: z
          .string()
          .max(253)
          .optional()
          .describe("StorageClass of the /workspace volume; the cluster's default when unset"),
      })
      .optional()
      .describe('The /workspace volume of each sandbox'),
    timeout: Duration.optional().describe(
      "Lifetime cap of each sandbox from its Pod's start, such as 8h; 0 means infinite",
    ),
    idleTimeout: Duration.optional().describe(
      'A sandbox stops after this long without activity (an API call, a run, a terminal), such as 30m',
    ),
    idle: z
      .object({
        cpuThreshold: z
          .number()
          .gt(0)
          .max(1024)
          .optional()
          .describe(
            'CPU, in cores, above which a sandbox counts as active for idleTimeout (over 10 s); off when unset',
          ),
      })
      .optional()
      .describe('What else counts as activity for idleTimeout'),
    network: z
      .object({
        egress: Egress.default('internet').describe(
          'none (DNS only), internet (public addresses, not the cluster private ranges), all, or allowlist (only the host names of allowedHosts, through the egress gateway)',
        ),
        allowedHosts: AllowedHosts.optional().describe(
          'With egress: allowlist, the hosts the sandboxes may reach: exact names (pypi.org), *. and a name for every name below it (*.pythonhosted.org), each with an optional :port (api.example.com:443; any port without one). None when unset',
        ),
      })
      // The same rule in the API (zod) and the CRD (CEL): a list is never silently ignored.
      .refine((n) => n.allowedHosts === undefined || n.egress === 'allowlist', {
        message: 'allowedHosts needs egress: allowlist',
        path: ['allowedHosts'],
      })
      .meta({
        description: 'Network access of the sandboxes',
        'x-kubernetes-validations': [
          {
            rule: "!has(self.allowedHosts) || self.egress == 'allowlist'",
            message: 'allowedHosts needs egress: allowlist',
            fieldPath: '.allowedHosts',
          },
        ],
      })
      .optional(),
    agent: z
      .object({
        maxConcurrentInvokes: z
          .int()
          .min(1)
          .max(1000)
          .optional()
          .describe('Cap on parallel invokes per sandbox, unless the Sandbox sets its own'),
        defaultInvokeTimeout: Duration.optional().describe(
          'Wall-clock cap of one invoke, such as 5m, unless the Sandbox sets its own',
        ),
      })
      .optional()
      .describe('Defaults for agent-mode sandboxes'),
    runtimeClassName: RuntimeClassName.optional().describe(
      "RuntimeClass of the sandboxes' Pods, such as gvisor (the RuntimeClass must exist in the cluster); the governance policy's defaultRuntimeClass when unset, else the node's default runtime. Governance allowedRuntimeClasses may restrict it",
    ),
    hostUsers: z
      .boolean()
      .optional()
      .describe(
        "false runs each sandbox in its own user namespace (the Pod's hostUsers: false): root inside is an unprivileged user on the node. Refused unless the cluster says its nodes offer user namespaces (node.userNamespaces); unset or true: the node's user namespace",
      ),
  })
  .describe(
    'What sandboxes made from this template run: image, command, resources, storage, limits, network, runtime class',
  );
export type SandboxTemplateSpec = z.infer<typeof SandboxTemplateSpec>;
