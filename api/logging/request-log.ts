import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';

declare module 'hono' {
  interface ContextVariableMap {
    /** This request's logger: the API's, with the request id bound. */
    log: Logger;
    /** This request's id, as `X-Request-Id` echoes it (for a handler that writes its own head). */
    requestId: string;
  }
}

/**
 * One child logger per request carrying its id (the caller's `X-Request-Id` when it sends a
 * sane one), echoed in the response, and one line when the request ends. Only method, path,
 * status and duration are logged: never headers (keys, tokens), query strings or bodies.
 */
export function requestLog(logger: Logger): MiddlewareHandler {
  return async (c, next) => {
    const offered = c.req.header('x-request-id');
    const id = offered && /^[\w.-]{1,128}$/.test(offered) ? offered : randomUUID();
    const log = logger.child({ requestId: id });
    c.set('log', log);
    c.set('requestId', id);
    c.header('x-request-id', id);
    const started = performance.now();
    await next();
    log.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        ...(c.var.caller ? { actor: c.var.caller.user } : {}),
      },
      'request',
    );
  };
}
