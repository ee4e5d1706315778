import { z } from 'zod';

/** A Kubernetes quantity written as a string (`500m`, `2Gi`) or a plain integer (`2`). */
export const Quantity = z
  .union([
    z.int(),
    z.string().regex(/^[+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+|[KMGTPE]i?|[mkMGTPE]|[un])?$/),
  ])
  .meta({ 'x-kubernetes-int-or-string': true, description: 'Kubernetes quantity, such as 500m, 2Gi or 1' });
export type Quantity = z.infer<typeof Quantity>;

/** A Go-style duration (`90s`, `1h30m`); `0` means infinite where the field allows it. */
export const Duration = z
  .string()
  .regex(/^(0|[+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|ms|s|m|h))+)$/)
  .meta({ description: 'Go-style duration such as 90s or 1h30m; 0 means infinite' });

/** An environment variable with a literal value (secrets go through `credentials`). */
export const EnvVar = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .max(256)
      .describe('Name of the variable: letters, digits and underscores, not starting with a digit'),
    value: z.string().default('').describe('Literal value of the variable; empty when unset'),
  })
  .describe('An environment variable with a literal value');
export type EnvVar = z.infer<typeof EnvVar>;

export const EnvList = z
  .array(EnvVar)
  .max(256)
  .meta({
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    description:
      'Environment variables with literal values, at most one per name (secrets go through credentials)',
  });

export const Argv = z.array(z.string()).max(1024).describe('An argv: the program, then its arguments');

const ResourceList = (what: string) =>
  z.object({
    cpu: Quantity.optional().describe(`CPU ${what}, in cores: 500m, 1 or 2`),
    memory: Quantity.optional().describe(`Memory ${what}, in bytes: 512Mi or 2Gi`),
    'ephemeral-storage': Quantity.optional().describe(
      `Ephemeral storage ${what} (the container's writable filesystem and logs), in bytes: 10Gi`,
    ),
  });

/** Requests and limits for CPU, memory and ephemeral storage, in Kubernetes quantities. */
export const ComputeResources = z
  .object({
    requests: ResourceList('request')
      .optional()
      .describe('What the scheduler reserves for the sandbox container'),
    limits: ResourceList('limit')
      .optional()
      .describe('What the sandbox container may use at most; each unset limit gets a default'),
  })
  .describe('CPU, memory and ephemeral storage of the sandbox container, as Kubernetes quantities');

/** A RuntimeClass's name (a DNS subdomain, as Kubernetes checks it on the Pod). */
export const RuntimeClassName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/);
