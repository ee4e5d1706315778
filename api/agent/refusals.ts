import type { Context, MiddlewareHandler } from 'hono';
import type { AgentDeps } from './deps.ts';
import { HttpError } from '../errors/index.ts';
import { requestNamespace } from '../request/index.ts';

/** How much of a refusal's message goes into the audit record. */
const MAX_MESSAGE = 500;

/**
 * Audits a configure or invoke call that ends in an error answer instead of a stream: the
 * spec has every configure and invoke call write a record, refused ones included. A
 * middleware in front of the sandbox's lookup, the checks and the handler, so no exit can
 * forget it (Hono hands it the error the answer was made from, `c.error`). Reasons:
 * `ConfigureDenied`/`InvokeDenied` for governance's 403, `ConfigureRefused`/`InvokeRefused`
 * for any other 4xx, `AgentConfigureFailed`/`AgentInvokeFailed` for a 5xx. The record holds
 * the status, error code and actor; never argv or stdin (no error message carries them).
 * A call for a sandbox that does not exist has nothing to put an Event on, and is not audited.
 */
export function auditingRefusals(deps: AgentDeps, call: 'configure' | 'invoke'): MiddlewareHandler {
  return async function auditRefusal(c, next) {
    await next();
    if (c.error) await recordRefusal(c, deps, call, c.error);
  };
}

async function recordRefusal(c: Context, deps: AgentDeps, call: 'configure' | 'invoke', err: unknown) {
  const status = err instanceof HttpError ? err.status : 500;
  const error = err instanceof HttpError ? err.code : 'internal';
  if (status === 404 || status === 401) return;
  const namespace = requestNamespace(c, deps);
  const name = c.req.param('id') ?? '';
  const sandbox =
    deps.cache.get(namespace, name) ?? (await deps.sandboxes.read(namespace, name).catch(() => undefined));
  if (!sandbox) return;
  const Call = call === 'configure' ? 'Configure' : 'Invoke';
  const [reason, verb] =
    status >= 500
      ? [`Agent${Call}Failed`, 'failed']
      : error === 'policy_violation'
        ? [`${Call}Denied`, 'denied']
        : [`${Call}Refused`, 'refused'];
  // A 4xx message is the API's own words; a 5xx one may quote sandboxd, so it stays out.
  const why = err instanceof HttpError && status < 500 ? err.message : 'see the API log';
  const actor: string = c.var.caller.user;
  await deps.audit.record({
    sandbox,
    reason,
    type: 'Warning',
    message: `${call} by ${actor} ${verb}: ${status} ${error}: ${why.slice(0, MAX_MESSAGE)}`,
    actor,
    refusal: { status, error },
  });
}
