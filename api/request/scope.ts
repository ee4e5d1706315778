import type { Hono, MiddlewareHandler } from 'hono';
import type { Sandbox } from '../../core/index.ts';
import { HttpError } from '../errors/index.ts';
import { honoPaths, methodOf, type Operation } from '../openapi/index.ts';
import { ownedSandbox, type SandboxLookup } from './sandbox.ts';

/** What the handlers of `/sandboxes/{id}/…` find on their context: the sandbox, resolved once. */
export interface OnSandbox {
  Variables: { sandbox: Sandbox };
}

/**
 * Resolves the sandbox `{id}` names once for every request to `ops`, before its input is
 * validated and its handler runs: 404 when it does not exist, 403 when it is someone else's
 * (`ownedSandbox`), else `c.var.sandbox`. It is registered on the operations' own methods and
 * paths rather than on `/sandboxes/:id/*`: a sub-app's middleware is mounted into the whole
 * API, so a wildcard would also run for the groups that resolve their sandbox themselves, and
 * before the "no such endpoint" of a path no operation has.
 */
export function onOwnedSandbox(
  app: Hono<OnSandbox>,
  deps: SandboxLookup,
  ops: readonly Operation[],
  /** `activity: false` for a look that is no use of the sandbox (its usage): see `ownedSandbox`. */
  opts: { activity?: boolean } = {},
): void {
  const resolve: MiddlewareHandler<OnSandbox> = async (c, next) => {
    // `/files/*` matches `/files` as well as `/files/…`: one lookup, whichever matched.
    if ((c.var.sandbox as Sandbox | undefined) === undefined)
      c.set('sandbox', await ownedSandbox(c, deps, opts));
    await next();
  };
  for (const op of ops) app.on(methodOf(op), honoPaths(op), resolve);
}

/**
 * 409 `not_running` unless the sandbox is Running: every call that needs its sandboxd says
 * which (`what`, as in "files and archives need it Running").
 */
export function requireRunning(sandbox: Sandbox, what: string, verb: 'needs' | 'need' = 'needs'): void {
  const phase = sandbox.status?.phase ?? 'Pending';
  if (phase !== 'Running')
    throw new HttpError(
      409,
      'not_running',
      `sandbox ${sandbox.metadata.name} is ${phase}; ${what} ${verb} it Running`,
      { extra: { phase } },
    );
}
