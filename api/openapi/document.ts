import { z } from 'zod';
import { ErrorBody, PathParams, type PathParamName } from '../../core/index.ts';
import { keyOperations } from '../keys/operations.ts';
import { secretOperations } from '../secrets/operations.ts';
import { execOperations } from '../exec/operations.ts';
import { usageOperations } from '../usage/operations.ts';
import { fileOperations } from '../files/operations.ts';
import { discoveryOperations } from '../discovery/operations.ts';
import { terminalOperations } from '../terminal/operations.ts';
import { createPreviewTicket, previewPort } from '../preview/operations.ts';
import { runOperations } from '../runs/operations.ts';
import { agentOperations } from '../agent/operations.ts';
import { portOperations } from '../ports/operations.ts';
import { cloneOperations } from '../clone/operations.ts';
import { governanceOperations } from '../governance/operations.ts';
import { getOpenApiDocument } from './operations.ts';
import { mcpMessage } from '../mcp/operations.ts';
import { listAuditEvents } from '../audit/operations.ts';
import { sandboxOperations } from '../sandboxes/operations.ts';

export type Status =
  | 101
  | 200
  | 201
  | 202
  | 204
  | 206
  | 400
  | 401
  | 403
  | 404
  | 409
  | 413
  | 416
  | 424
  | 426
  | 429
  | 431
  | 500
  | 502
  | 503
  | 504
  | 507;

export interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  /** Unique and stable: clients generate method names from it. */
  operationId: string;
  summary: string;
  request?: z.ZodType;
  /** Success status → schema (undefined: no body). */
  responses: Partial<Record<Status, z.ZodType | undefined>>;
  /** The refusals this operation can answer with; each body is `Error` unless `refusals` says otherwise. */
  errors: readonly Status[];
  /** Bodies of refusals that are not plain `Error`s (the spec's `policy_violation` and 429). */
  refusals?: Partial<Record<Status, readonly z.ZodType[]>>;
  query?: z.ZodObject;
  /**
   * The 200 answer is a Server-Sent Events stream of these named events (or, when
   * `responses[200]` is a schema too, JSON unless the caller accepts `text/event-stream`).
   */
  events?: Record<string, z.ZodType>;
  /** The request body is raw bytes (the invoke's stdin), not JSON. */
  rawRequest?: boolean;
  /**
   * The handler reads the JSON body itself, after checks that must come first (configure
   * streams it, one file at a time); `request` still describes it.
   */
  ownBody?: boolean;
  /**
   * The handler checks the query itself (the terminal's, whose check its WebSocket upgrade
   * shares); `query` still describes it.
   */
  ownQuery?: boolean;
  /** The same operation answers at the path with a trailing slash (`/files/?path=`). */
  trailingSlash?: boolean;
  /**
   * The answers are sandboxd's, relayed as they are (status, headers, body streamed): the
   * handler may return a plain `Response`, in the shapes `responses` declares.
   */
  relayed?: boolean;
  /** Any status may come back (the preview proxy answers with the app's response). */
  anyStatus?: string;
  /** The route takes every method (the preview proxy); the document names `method` only. */
  anyMethod?: boolean;
  /** The success answers carry raw bytes of these media types (besides any JSON body). */
  binary?: readonly string[];
}

/** Every operation of the API, with the zod schemas that validate it. */
export const operations: Operation[] = [
  ...sandboxOperations,
  ...cloneOperations,
  ...portOperations,
  previewPort,
  ...agentOperations,
  listAuditEvents,
  ...secretOperations,
  ...governanceOperations,
  ...keyOperations,
  getOpenApiDocument,
  ...execOperations,
  ...runOperations,
  ...usageOperations,
  ...fileOperations,
  ...terminalOperations,
  createPreviewTicket,
  ...discoveryOperations,
  mcpMessage,
];

/** A schema as the document embeds it: JSON Schema 2020-12 without the dialect marker. */
function inline(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' });
  return json;
}

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
  const ref = (s: z.ZodType): { $ref: string } => {
    const id = (s.meta() as { id?: string } | undefined)?.id;
    if (!id) throw new Error('every request and response schema needs meta({ id })');
    return { $ref: uri(id) };
  };
  const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const inPath = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as PathParamName);
    const parameters = [
      ...inPath.map((name) => ({ name, in: 'path', required: true, schema: inline(PathParams[name]) })),
      ...Object.entries(op.query?.shape ?? {}).map(([name, schema]) => ({
        name,
        in: 'query',
        required: false,
        schema: inline(schema as z.ZodType),
      })),
    ];
    const bytes = Object.fromEntries(
      (op.binary ?? []).map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
    );
    const success = Object.entries(op.responses).map(([status, body]): [string, unknown] => [
      status,
      op.binary
        ? { description: describe(status), content: { ...bytes, ...(body ? json(ref(body)).content : {}) } }
        : body && !(op.events && status === '200')
          ? { description: describe(status), ...json(ref(body)) }
          : op.events && status === '200'
            ? {
                description:
                  'Server-Sent Events; the data of each event is the JSON of the schema named after it',
                content: {
                  ...(body ? json(ref(body)).content : {}),
                  'text/event-stream': {
                    // One event of the stream, as OpenAPI 3.2's itemSchema describes Server-Sent
                    // Events (and as schemathesis checks each event): its name and its data, the
                    // JSON of the schema x-sse-events names for it. Keepalives are comments.
                    schema: {
                      oneOf: Object.entries(op.events).map(([name, schema]) => ({
                        type: 'object',
                        required: ['event', 'data'],
                        properties: {
                          event: { const: name },
                          data: {
                            type: 'string',
                            contentMediaType: 'application/json',
                            contentSchema: ref(schema),
                          },
                          id: { type: 'string' },
                          retry: { type: 'integer' },
                        },
                      })),
                    },
                    'x-sse-events': Object.fromEntries(
                      Object.entries(op.events).map(([name, schema]) => [name, ref(schema)]),
                    ),
                  },
                },
              }
            : { description: describe(status) },
    ]);
    // Any request can be refused for its size before it reaches a route (`api/serve.ts`).
    const refusals = [...op.errors, 431 as const].map((status): [string, unknown] => {
      const bodies = op.refusals?.[status];
      const schema = bodies ? { anyOf: bodies.map(ref) } : ref(ErrorBody);
      return [String(status), { description: describe(String(status)), ...json(schema) }];
    });
    (paths[op.path] ??= {})[op.method] = {
      operationId: op.operationId,
      summary: op.summary,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(op.request ? { requestBody: { required: false, ...json(ref(op.request)) } } : {}),
      ...(op.rawRequest
        ? {
            requestBody: {
              required: false,
              content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
            },
          }
        : {}),
      responses: {
        ...Object.fromEntries([...success, ...refusals]),
        ...(op.anyStatus ? { default: { description: op.anyStatus } } : {}),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc',
      version: 'v1',
      description:
        'Kubernetes-native sandbox orchestration API. Its tools are also served over the Model Context Protocol ' +
        'at `POST /api/v1/mcp` (Streamable HTTP, stateless, JSON answers; the same credentials, owner-or-admin ' +
        'rules, 1 MiB body bound and audit as every endpoint): an MCP client speaks JSON-RPC there, which ' +
        'operation `mcpMessage` describes (docs/mcp.md).',
    },
    // Where the MCP endpoint is, for tools that read this document.
    'x-mcp': { path: '/mcp', transport: 'streamable-http', docs: 'docs/mcp.md' },
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

const DESCRIPTIONS: Record<string, string> = {
  '101': 'Switching Protocols: the connection is now a WebSocket',
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
  '204': 'No content',
  '206': 'Partial content: the byte range asked for',
  '400': 'Invalid request: a parameter or body field is malformed (`fields` names each)',
  '401': 'No valid X-API-Key or bearer token',
  '403': 'Not allowed: not the owner, not an admin, a policy refuses it, or the cluster refuses the service',
  '404': 'No such object (or namespace)',
  '409': 'Conflicts with the current state (exists already, not running, changed meanwhile)',
  '413': 'Request body too large',
  '416': 'The byte range asked for is not in the file',
  '424': 'The sandbox is not configured yet',
  '426': 'Upgrade required: this endpoint is a WebSocket',
  '429': 'Too many in flight',
  '431': "The request line and headers together exceed the server's limit (16 KiB): a shorter URL",
  '500': 'A stored policy is malformed, or a fault of the service',
  '502': 'The sandbox did not answer',
  '503': 'The Kubernetes API or the sandbox is unavailable or throttling; retry after Retry-After',
  '504': 'The operator did not publish the change in time',
  '507': 'The sandbox volume is full; nothing was left behind',
};
const describe = (status: string) => DESCRIPTIONS[status] ?? `HTTP ${status}`;

/** A registry entry as a component: its `$id` (a fragment URI, which OpenAPI 3.1 forbids) dropped. */
function strip(json: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _, $id: __, id: ___, ...rest } = json;
  return rest;
}
