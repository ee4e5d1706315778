import { z } from 'zod';
import { NamespaceName, SandboxName } from './sandboxes.ts';
import { RunId } from './runs.ts';
import { SecretName } from './secrets.ts';

/**
 * The path and query parameters of the HTTP API. Each is checked before any handler runs
 * (api/validation), and the OpenAPI document describes each with the same schema, so what
 * is documented is what is accepted. Names and namespaces that reach an apiserver path or
 * field selector are Kubernetes names: never `/`, `%`, `=`, `,` or a control character.
 */

/** A TCP port in a path (`/ports/{port}`, `/preview/{port}`): digits, 1–65535. */
export const PortParam = z.coerce
  .number({ error: 'must be a port number' })
  .int('must be a port number')
  .min(1, 'must be a port number from 1 to 65535')
  .max(65535, 'must be a port number from 1 to 65535');

/** The id of an API key record (`DELETE /apikeys/{keyId}`): 12 hex digits. */
export const ApiKeyId = z.string().regex(/^[0-9a-f]{1,64}$/, 'is not an API key id (hex digits)');

/** An Event reason, such as `InvokeCompleted`: it goes into a field selector. */
export const EventReason = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9]{0,127}$/, 'must be an event reason such as InvokeCompleted');

/** A template's name (`GET /templates/{name}`): a Kubernetes object name (DNS subdomain). */
export const TemplateName = z
  .string()
  .max(253, 'must be at most 253 characters')
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, 'is not a template name');

/** Every path parameter the API has, by the name routes give it. */
export const PathParams = {
  id: SandboxName,
  port: PortParam,
  namespace: NamespaceName,
  keyId: ApiKeyId,
  secretName: SecretName,
  name: TemplateName,
  /** A run's id (`/runs/{invokeId}`): an invoke's or exec's. */
  invokeId: RunId,
  /** The rest of a preview path: passed to the sandbox's app as it is. */
  path: z.string(),
} as const;
export type PathParamName = keyof typeof PathParams;

/** `?namespace=` on the endpoints that address one; absent means the deployment's default. */
export const NamespaceQuery = z.object({ namespace: NamespaceName.optional() });

/** `GET /sandboxes` */
export const ListQuery = NamespaceQuery.extend({
  mode: z.enum(['code', 'agent']).optional(),
  phase: z.enum(['Pending', 'Creating', 'Running', 'Stopped', 'Error']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  continue: z.string().max(1024).optional(),
  /** `true` with `Accept: text/event-stream`: the visible sandboxes, then every change, as SSE. */
  watch: z.enum(['true', 'false']).optional(),
});

/** `GET /audit/events` */
export const AuditQuery = NamespaceQuery.extend({
  sandbox: SandboxName.optional(),
  reason: EventReason.optional(),
  /** `egress`: only the egress gateway's records (`EgressAllowed`, `EgressDenied`). */
  category: z
    .enum(['egress'])
    .optional()
    .describe("egress: only the egress gateway's records (reasons EgressAllowed and EgressDenied)"),
  since: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  continue: z.string().max(1024).optional(),
});
