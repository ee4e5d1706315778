import { posix } from 'node:path';
import type { Context } from 'hono';
import type { z } from 'zod';
import { durationMs } from '../../core/index.ts';
import { HttpError } from '../errors/index.ts';
import { parsed } from '../openapi/index.ts';

/** The folder every exec runs in unless it names another inside it. */
export const WORKSPACE = '/workspace';

/**
 * The query parsed by a strict schema: a parameter it does not know is a 400, never ignored.
 * Usage's still (its group reads its query itself); a route declared by an operation has
 * its query checked by `route` (`validQuery`), the same way.
 */
export function strictQuery<T extends z.ZodType>(c: Context, schema: T): z.infer<T> {
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

/**
 * `workingDir` made absolute and checked to lie in `/workspace`: 400
 * `path_outside_workspace` otherwise (`..` cannot climb out).
 */
export function workingDirOf(requested: string | undefined): string {
  if (requested === undefined) return WORKSPACE;
  const resolved = posix.resolve(WORKSPACE, requested);
  if (requested.includes('\0') || (resolved !== WORKSPACE && !resolved.startsWith(`${WORKSPACE}/`))) {
    throw new HttpError(
      400,
      'path_outside_workspace',
      `workingDir ${JSON.stringify(requested)} is outside ${WORKSPACE}`,
      {
        extra: { fields: [{ path: 'workingDir', message: `must be inside ${WORKSPACE}` }] },
      },
    );
  }
  return resolved;
}

/** An exec's `timeout` in milliseconds: a number is seconds, a string a duration; 0 is none. */
export function timeoutMsOf(timeout: number | string | undefined): number {
  if (timeout === undefined) return 0;
  return typeof timeout === 'number' ? Math.round(timeout * 1000) : durationMs(timeout);
}
