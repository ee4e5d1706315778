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
export const EnvVar = z.object({
  name: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .max(256),
  value: z.string().default(''),
});
export type EnvVar = z.infer<typeof EnvVar>;

export const EnvList = z
  .array(EnvVar)
  .max(256)
  .meta({
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
  });

export const Argv = z.array(z.string()).max(1024);

/** Requests and limits for CPU and memory, in Kubernetes quantities. */
export const ComputeResources = z.object({
  requests: z.object({ cpu: Quantity.optional(), memory: Quantity.optional() }).optional(),
  limits: z.object({ cpu: Quantity.optional(), memory: Quantity.optional() }).optional(),
});
