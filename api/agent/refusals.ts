import type { Context } from 'hono';
import type { ApiDeps } from '../deps.ts';
import { HttpError } from '../errors/index.ts';
import { requestNamespace } from '../sandboxes/index.ts';

/** How much of a refusal's message goes into the audit record. */
const MAX_MESSAGE = 500;

/**
 * Runs a configure or invoke handler and audits the call when it ends in an error answer
 * instead of a stream: the spec has every configure and invoke call write a record, refused
 * ones included. One place, so no exit of the handler can forget it. Reasons:
 * `ConfigureDenied`/`InvokeDenied` for governance's 403, `ConfigureRefused`/`InvokeRefused`
 * for any other 4xx, `AgentConfigureFailed`/`AgentInvokeFailed` for a 5xx. The record holds
 * the status, error code and actor; never argv or stdin (no error message carries them).
 * A call for a sandbox that does not exist has nothing to put an Event on, and is not audited.
 */
export async function auditingRefusals(
  c: Context,
  deps: ApiDeps,
  call: 'configure' | 'invoke',
  handler: () => Promise<Response>,
): Promise<Response> {
  try {
    return await handler();
  } catch (err) {
    await recordRefusal(c, deps, call, err);
    throw err;
  }
}

async function recordRefusal(c: Context, deps: ApiDeps, call: 'configure' | 'invoke', err: unknown) {
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
