import {
  CancelAccepted,
  CancelRequest,
  ConcurrencyExceeded,
  ConfigureRequest,
  ConfigureResult,
  DetachedRun,
  ErrorBody,
  ErrorEvent,
  ExitEvent,
  InvokeQuery,
  LogEvent,
  NamespaceQuery,
  StartEvent,
} from '../../core/index.ts';
import type { Status } from '../openapi/document.ts';
import { operation } from '../openapi/route.ts';
import { governed, onSandbox } from '../openapi/shared.ts';

/** The agent endpoints' refusals, in the spec's check order. */
const agentErrors: Status[] = [400, 401, 403, 404, 409, 413, 429, 503];

export const configureSandbox = operation({
  method: 'post',
  path: '/sandboxes/{id}/configure',
  operationId: 'configureSandbox',
  summary:
    'Write files, record the entrypoint and run the install once (agent mode); streams `log` then `result`',
  request: ConfigureRequest,
  // Read by the handler as it streams in, after the checks that must come first.
  ownBody: true,
  query: NamespaceQuery,
  events: { log: LogEvent, result: ConfigureResult, error: ErrorEvent },
  responses: { 200: undefined },
  errors: agentErrors,
  refusals: { ...governed, 429: [ConcurrencyExceeded, ErrorBody] },
});

export const invokeSandbox = operation({
  method: 'post',
  path: '/sandboxes/{id}/invoke',
  operationId: 'invokeSandbox',
  summary:
    'Run the entrypoint with the raw body as stdin (agent mode; at most 16 MiB); streams `start`, `log`, `exit`, optional `error`; with `detach=true` 202 and the run’s id at once, the run going on without the caller',
  rawRequest: true,
  query: InvokeQuery,
  events: { start: StartEvent, log: LogEvent, exit: ExitEvent, error: ErrorEvent },
  responses: { 200: undefined, 202: DetachedRun },
  errors: [...agentErrors, 424, 502],
  refusals: { ...governed, 429: [ConcurrencyExceeded, ErrorBody] },
});

export const cancelInvoke = operation({
  method: 'post',
  path: '/sandboxes/{id}/invoke/cancel',
  operationId: 'cancelInvoke',
  summary: 'Cancel an invoke in flight (from any API replica)',
  request: CancelRequest,
  query: NamespaceQuery,
  responses: { 202: CancelAccepted },
  errors: [...onSandbox, 409, 413],
});

/** Agent mode: configure, invoke and its cancel, in the document's order. */
export const agentOperations = [configureSandbox, invokeSandbox, cancelInvoke];
