import { z } from 'zod';
import {
  CancelRequest,
  ConfigureRequest,
  ConfigureResult,
  ErrorEvent,
  ExitEvent,
  LogEvent,
  StartEvent,
  CloneRequest,
  CloneResponse,
  CreateSandboxRequest,
  ErrorBody,
  ForwardedPort,
  PortRequest,
  Policy,
  SandboxSpec,
  SandboxStatus,
} from '../../core/index.ts';

interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  summary: string;
  request?: z.ZodType;
  /** Status → schema (undefined: no body). */
  responses: Record<number, z.ZodType | undefined>;
  query?: string[];
  /** The 200 answer is a Server-Sent Events stream of these named events. */
  events?: Record<string, z.ZodType>;
  /** The request body is raw bytes (the invoke's stdin), not JSON. */
  rawRequest?: boolean;
}

const Sandbox = z
  .object({
    apiVersion: z.literal('svc.io/v1alpha1'),
    kind: z.literal('Sandbox'),
    metadata: z.object({ name: z.string(), namespace: z.string() }).catchall(z.unknown()),
    spec: SandboxSpec,
    status: SandboxStatus,
  })
  .meta({ id: 'Sandbox' });
const SandboxList = z
  .object({ items: z.array(Sandbox), continue: z.string().optional() })
  .meta({ id: 'SandboxList' });
const Accepted = z
  .object({ name: z.string(), namespace: z.string(), message: z.string() })
  .meta({ id: 'Accepted' });

const AuditRecord = z
  .object({
    id: z.string(),
    time: z.string(),
    reason: z.string(),
    type: z.string(),
    sandbox: z.string(),
    namespace: z.string(),
    actor: z.string().nullable(),
    message: z.string(),
    count: z.int(),
    involvedObject: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditRecord' });
const AuditList = z
  .object({ items: z.array(AuditRecord), continue: z.string().optional() })
  .meta({ id: 'AuditList' });

const PolicyViolation = z
  .object({
    error: z.literal('policy_violation'),
    violations: z.array(z.object({ code: z.string(), message: z.string() })),
  })
  .meta({ id: 'PolicyViolation' });
const StoredPolicies = z
  .object({ cluster: Policy.optional(), namespaces: z.record(z.string(), Policy) })
  .meta({ id: 'StoredPolicies' });
const EffectivePolicy = z.object({ namespace: z.string(), policy: Policy }).meta({ id: 'EffectivePolicy' });

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

const ConcurrencyExceeded = z
  .object({
    error: z.literal('concurrency_exceeded'),
    limit: z.int(),
    inflight: z.int(),
    message: z.string(),
  })
  .meta({ id: 'ConcurrencyExceeded' });
const CancelAccepted = z
  .object({ invokeId: z.string(), status: z.literal('canceling') })
  .meta({ id: 'CancelAccepted' });
/** The agent endpoints' refusals, in the spec's check order. */
const agentErrors = {
  400: ErrorBody,
  401: ErrorBody,
  403: PolicyViolation,
  404: ErrorBody,
  409: ErrorBody,
  429: ConcurrencyExceeded,
  503: ErrorBody,
};

/** Every operation of the API, with the zod schemas that validate it. */
export const operations: Operation[] = [
  {
    method: 'post',
    path: '/sandboxes',
    summary: 'Create a sandbox',
    request: CreateSandboxRequest,
    responses: { 201: Sandbox, ...errors, 403: PolicyViolation, 409: ErrorBody },
  },
  {
    method: 'get',
    path: '/sandboxes',
    summary: 'List sandboxes (non-admins see their own)',
    query: ['namespace', 'mode', 'phase', 'limit', 'continue'],
    responses: { 200: SandboxList, 400: ErrorBody, 401: ErrorBody },
  },
  {
    method: 'get',
    path: '/sandboxes/{id}',
    summary: 'Get a sandbox',
    responses: { 200: Sandbox, ...errors },
  },
  {
    method: 'delete',
    path: '/sandboxes/{id}',
    summary: 'Delete a sandbox',
    responses: { 202: Accepted, ...errors },
  },
  {
    method: 'post',
    path: '/sandboxes/{id}/stop',
    summary: 'Stop a sandbox (keeps its workspace)',
    responses: { 202: Sandbox, ...errors },
  },
  {
    method: 'post',
    path: '/sandboxes/{id}/resume',
    summary: 'Resume a stopped sandbox',
    responses: { 202: Sandbox, ...errors },
  },
  {
    method: 'post',
    path: '/sandboxes/{id}/clone',
    summary: 'Clone a sandbox from a VolumeSnapshot of its workspace',
    request: CloneRequest,
    responses: { 202: CloneResponse, ...errors, 403: PolicyViolation, 409: ErrorBody, 500: ErrorBody },
  },
  {
    method: 'post',
    path: '/sandboxes/{id}/ports',
    summary: 'Forward a container port',
    request: PortRequest,
    responses: { 200: ForwardedPort, 201: ForwardedPort, ...errors, 504: ErrorBody },
  },
  {
    method: 'delete',
    path: '/sandboxes/{id}/ports/{port}',
    summary: 'Stop forwarding a port (idempotent)',
    responses: { 204: undefined, ...errors, 504: ErrorBody },
  },
  {
    method: 'get',
    path: '/sandboxes/{id}/preview/{port}/{path}',
    summary: 'Reverse-proxy to a forwarded port (any method; WebSocket upgrades pass through)',
    responses: { 200: undefined, ...errors, 409: ErrorBody, 502: ErrorBody },
  },
  {
    method: 'post',
    path: '/sandboxes/{id}/configure',
    summary:
      'Write files, record the entrypoint and run the install once (agent mode); streams `log` then `result`',
    request: ConfigureRequest,
    events: { log: LogEvent, result: ConfigureResult, error: ErrorEvent },
    responses: { 200: undefined, ...agentErrors, 413: ErrorBody },
  },
  {
    method: 'post',
    path: '/sandboxes/{id}/invoke',
    summary:
      'Run the entrypoint with the raw body as stdin (agent mode; at most 16 MiB); streams `start`, `log`, `exit`, optional `error`',
    rawRequest: true,
    events: { start: StartEvent, log: LogEvent, exit: ExitEvent, error: ErrorEvent },
    responses: { 200: undefined, ...agentErrors, 413: ErrorBody, 424: ErrorBody, 502: ErrorBody },
  },
  {
    method: 'post',
    path: '/sandboxes/{id}/invoke/cancel',
    summary: 'Cancel an invoke in flight (from any API replica)',
    request: CancelRequest,
    responses: { 202: CancelAccepted, ...errors, 503: ErrorBody },
  },
  {
    method: 'get',
    path: '/audit/events',
    summary: 'Audit records (Sandbox Events), newest first; non-admins see their own sandboxes only',
    query: ['namespace', 'sandbox', 'reason', 'since', 'limit', 'continue'],
    responses: { 200: AuditList, 400: ErrorBody, 401: ErrorBody },
  },
  {
    method: 'get',
    path: '/governance/policies',
    summary: 'The cluster default and every namespace override (admin)',
    responses: { 200: StoredPolicies, 401: ErrorBody, 403: ErrorBody, 500: ErrorBody },
  },
  {
    method: 'put',
    path: '/governance/policies',
    summary: 'Set the cluster default policy (admin)',
    request: Policy,
    responses: { 200: Policy, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
  },
  {
    method: 'put',
    path: '/governance/policies/{namespace}',
    summary: 'Set a namespace override (admin)',
    request: Policy,
    responses: { 200: Policy, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
  },
  {
    method: 'delete',
    path: '/governance/policies/{namespace}',
    summary: 'Remove a namespace override (admin)',
    responses: { 204: undefined, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
  },
  {
    method: 'get',
    path: '/governance/effective',
    summary: 'The policy in force in a namespace',
    query: ['namespace'],
    responses: { 200: EffectivePolicy, 401: ErrorBody, 500: ErrorBody },
  },
];

/** The OpenAPI 3.1 document served at `/api/v1/openapi.json` and checked in as `api/openapi.json`. */
export function openApiDocument(): Record<string, unknown> {
  // Every schema with a `meta({ id })` becomes a component; references between them use
  // component paths, so the document resolves as one.
  const uri = (id: string) => `#/components/schemas/${id}`;
  const all = z.toJSONSchema(z.globalRegistry, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
    uri,
  });
  const components = Object.fromEntries(Object.entries(all.schemas).map(([id, json]) => [id, strip(json)]));
  const ref = (s: z.ZodType): unknown => {
    const id = (s.meta() as { id?: string } | undefined)?.id;
    if (!id) throw new Error('every request and response schema needs meta({ id })');
    return { $ref: uri(id) };
  };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const query = (op.query ?? []).map((name) => ({
      name,
      in: 'query',
      required: false,
      schema: { type: 'string' },
    }));
    (paths[op.path] ??= {})[op.method] = {
      summary: op.summary,
      parameters: [
        ...params,
        ...query,
        { name: 'namespace', in: 'query', required: false, schema: { type: 'string' } },
      ].filter((p, i, all) => all.findIndex((q) => q.name === p.name) === i),
      ...(op.request
        ? { requestBody: { required: false, content: { 'application/json': { schema: ref(op.request) } } } }
        : {}),
      ...(op.rawRequest
        ? {
            requestBody: {
              required: false,
              content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
            },
          }
        : {}),
      responses: Object.fromEntries(
        Object.entries(op.responses).map(([status, body]) => [
          status,
          body
            ? { description: status, content: { 'application/json': { schema: ref(body) } } }
            : op.events && status === '200'
              ? {
                  description:
                    'Server-Sent Events; the data of each event is the JSON of the schema named after it',
                  content: {
                    'text/event-stream': {
                      schema: { type: 'string' },
                      'x-sse-events': Object.fromEntries(
                        Object.entries(op.events).map(([name, schema]) => [name, ref(schema)]),
                      ),
                    },
                  },
                }
              : { description: status },
        ]),
      ),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'svc', version: 'v1', description: 'Kubernetes-native sandbox orchestration API' },
    servers: [{ url: '/api/v1' }],
    security: [{ apiKey: [] }, { bearer: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
    },
  };
}

function strip(json: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _, id: __, ...rest } = json;
  return rest;
}
