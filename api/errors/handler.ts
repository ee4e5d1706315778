import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from 'pino';
import { z } from 'zod';
import { HttpError } from './http-error.ts';

/** Field paths as the caller wrote them (`spec.ports[0].port`). */
export function fieldPath(path: PropertyKey[]): string {
  return path.reduce<string>(
    (acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)),
    '',
  );
}

/** Turns a zod failure into a 400 listing every bad field. */
export function validationError(error: z.ZodError, prefix = ''): HttpError {
  const fields = error.issues.map((i) => ({
    path: fieldPath(prefix ? [prefix, ...i.path] : i.path),
    message: i.message,
  }));
  const first = fields[0];
  const summary = first ? `${first.path || 'body'}: ${first.message}` : 'invalid request';
  return new HttpError(400, 'invalid_request', `invalid request: ${summary}`, { extra: { fields } });
}

/** Recognises errors raised outside the API's own code (the apiserver's) as answers. */
export type ErrorTranslator = (err: unknown) => HttpError | undefined;

/**
 * The one place errors become responses: known errors keep their status and code, errors
 * `translate` recognises (the cluster's refusals) become theirs; anything else is logged
 * and answered with a 500 that carries no internals (never a stack trace).
 */
export function errorHandler(logger: Logger, translate: ErrorTranslator = () => undefined) {
  return function onError(err: Error, c: Context) {
    const known =
      err instanceof HttpError ? err : err instanceof z.ZodError ? validationError(err) : translate(err);
    if (known) {
      for (const [name, value] of Object.entries(known.headers)) c.header(name, value);
      if (known.status >= 500) logger.warn({ err, method: c.req.method, path: c.req.path }, known.message);
      return c.json(known.body(), known.status as ContentfulStatusCode);
    }
    logger.error({ err, method: c.req.method, path: c.req.path }, 'unhandled error');
    return c.json({ error: 'internal', message: 'internal error; see the server log' }, 500);
  };
}
