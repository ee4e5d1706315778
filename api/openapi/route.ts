import type { Context, Env, Hono } from 'hono';
import type { BlankEnv } from 'hono/types';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import { HttpError, badRequest, validationError } from '../errors/index.ts';
import type { Operation } from './document.ts';

/**
 * One endpoint declared once: the operation (method, path, query, body and answers, each a
 * zod schema) is what the OpenAPI document is generated from, and `route` registers its
 * handler from the same object — its path, its method, the validation of its query and body,
 * and the types the handler's answers are checked against. Nothing else names the endpoint.
 *
 * Why our table and not `@hono/zod-openapi` (docs/api.md): its JSON body validator skips a
 * body whose Content-Type is not JSON and hands the handler `{}` (curl's `-d` sends
 * `application/x-www-form-urlencoded`: today's API reads that body, it would silently drop
 * it); its document comes from a second zod-to-JSON-Schema converter beside the `z.toJSONSchema`
 * the CRDs use; and Server-Sent Events, raw bodies, binary answers and the refusals every
 * operation shares would be written out by hand in each `createRoute`, where this table says
 * them in one field each.
 */

/** The schema of the answer with status `S`, or `undefined` when it has no body. */
type AnswerSchema<O extends Operation, S> = S extends keyof O['responses'] ? O['responses'][S] : never;

/** Statuses whose answer is a JSON body. */
type JsonStatus<O extends Operation> = {
  [S in keyof O['responses']]: O['responses'][S] extends z.ZodType ? S : never;
}[keyof O['responses']] &
  number;

/** Statuses with no body (204). */
type EmptyStatus<O extends Operation> = {
  [S in keyof O['responses']]: O['responses'][S] extends z.ZodType ? never : S;
}[keyof O['responses']] &
  number;

declare const declared: unique symbol;
/** A response built by `Reply`: only such a response (or a stream, below) may be returned. */
export type Answer<O extends Operation> = Response & { readonly [declared]: O };

/**
 * Operations that answer with a stream, raw bytes, whatever the app answers (a preview) or
 * sandboxd's own answer relayed may also return a plain `Response`: their bodies are not JSON
 * the type system can check.
 */
type Stream<O extends Operation> = O extends
  { events: object } | { binary: readonly string[] } | { anyStatus: string } | { relayed: true }
  ? Response
  : never;

export interface Reply<O extends Operation> {
  /** A JSON answer whose body must match the operation's schema for `status` (`tsc` checks). */
  json<S extends JsonStatus<O>>(
    status: S,
    body: z.input<Extract<AnswerSchema<O, S>, z.ZodType>>,
    headers?: Record<string, string>,
  ): Answer<O>;
  /** An answer without a body (204). */
  empty(status: EmptyStatus<O>): Answer<O>;
}

/** What the handler gets besides the context: the query and body, parsed by their schemas. */
export interface Input<O extends Operation> {
  /** Empty when the operation checks its own query (the terminal's, shared with its upgrade). */
  query: O extends { ownQuery: true }
    ? Record<string, never>
    : O extends { query: infer Q extends z.ZodType }
      ? z.output<Q>
      : Record<string, never>;
  /** Absent when the operation reads its own body (raw bytes, or configure's streamed JSON). */
  body: O extends { ownBody: true } | { rawRequest: true }
    ? undefined
    : O extends { request: infer B extends z.ZodType }
      ? z.output<B>
      : undefined;
}

/** A handler of `op`; `E` types what middleware put on the context (`c.var.sandbox`). */
export type Handler<O extends Operation, E extends Env = BlankEnv> = (
  c: Context<E>,
  input: Input<O>,
  reply: Reply<O>,
) => Promise<Answer<O> | Stream<O>> | Answer<O> | Stream<O>;

/** Declares an operation with its literal types kept (the handler's input and answers use them). */
export function operation<const O extends Operation>(op: O): O {
  return op;
}

/**
 * Registers `handler` for `op` on `app` (mounted at `/api/v1`), its input validated first
 * (after any middleware `app` runs on the same paths, such as `onOwnedSandbox`'s).
 */
export function route<const O extends Operation, E extends Env = BlankEnv>(
  app: Hono<E>,
  op: O,
  handler: Handler<O, E>,
): void {
  const handle = async (c: Context<E>) => {
    const query = op.query && !op.ownQuery ? validQuery(c, op.query) : {};
    const body =
      op.request && !op.rawRequest && !op.ownBody ? parsed(op.request, await readJson(c.req.raw)) : undefined;
    return handler(c, { query, body } as Input<O>, replyOf<O, E>(c));
  };
  // The operation is kept on the handler, for `operationOf`.
  app.on(methodOf(op), honoPaths(op), Object.assign(handle, { [OPERATION]: op }));
}

/** The Hono method of `op`: 'ALL', Hono's any method, for the preview proxy. */
export const methodOf = (op: Operation) => (op.anyMethod ? 'ALL' : op.method.toUpperCase());

const OPERATION = Symbol('operation');

/**
 * The operation a route of `app.routes` was registered from by `route`, if it was: how the
 * check that every operation has a route, and every route an operation, walks the app.
 */
export function operationOf(handler: unknown): Operation | undefined {
  return (handler as { [OPERATION]?: Operation } | undefined)?.[OPERATION];
}

/** The paths Hono matches for `op`, relative to `/api/v1`. */
export function honoPaths(op: Operation): string[] {
  // `{path}` is the rest of the path (a file, a preview's path); every other `{name}` is one segment.
  const path = op.path.replace('/{path}', '/*').replace(/\{(\w+)\}/g, ':$1');
  return op.trailingSlash ? [path, `${path}/`] : [path];
}

/** Answers through the context, so headers middleware set on it are kept. */
function replyOf<O extends Operation, E extends Env>(c: Context<E>): Reply<O> {
  return {
    json: (status, body, headers) =>
      c.json(body, status as ContentfulStatusCode, headers) as unknown as Answer<O>,
    empty: (status) => c.body(null, status as 204) as unknown as Answer<O>,
  };
}

/**
 * The one validation hook: every refusal of a query or body is `validationError`'s 400 (the
 * fields named). A strict query (one that refuses unknown parameters) refuses a repeated one
 * too; any other takes each parameter's first value.
 */
export function validQuery(c: Context, schema: z.ZodObject): unknown {
  if (!isStrict(schema)) return parsed(schema, c.req.query());
  const raw: Record<string, string> = {};
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (values.length > 1)
      throw new HttpError(400, 'invalid_request', `invalid request: ${name}: given more than once`, {
        extra: { fields: [{ path: name, message: 'given more than once' }] },
      });
    raw[name] = values[0] ?? '';
  }
  return parsed(schema, raw);
}

/** `schema`'s output for `input`, or the 400 that names every bad field. */
export function parsed<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error);
  return result.data;
}

const isStrict = (schema: z.ZodObject) => schema.def.catchall?._zod.def.type === 'never';

/** The JSON body, or a 400 that says it is not JSON (an empty body counts as `{}`). */
export async function readJson(req: Request): Promise<unknown> {
  const text = await req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badRequest('request body is not valid JSON');
  }
}
