import {
  CancelAccepted,
  ConcurrencyExceeded,
  ErrorBody,
  ErrorEvent,
  ExecCancelRequest,
  DetachedRun,
  ExecRequest,
  ExecStartQuery,
  ExecResult,
  ExitEvent,
  LogEvent,
  LogsQuery,
  NamespaceQuery,
  SandboxLogs,
  StartEvent,
} from '../../core/index.ts';
import { operation } from '../openapi/route.ts';

export const execSandbox = operation({
  method: 'post',
  path: '/sandboxes/{id}/exec',
  operationId: 'execSandbox',
  summary:
    'Run a command in the sandbox (a string runs with sh -c; at most 32 at once per sandbox): JSON with the exit and each stream up to 10 MiB, or with `Accept: text/event-stream` the events `start`, `log`, `exit`, optional `error`; with `detach=true` (and a `timeout`) 202 and the run’s id at once',
  request: ExecRequest,
  query: ExecStartQuery,
  responses: { 200: ExecResult, 202: DetachedRun },
  events: { start: StartEvent, log: LogEvent, exit: ExitEvent, error: ErrorEvent },
  errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
  refusals: { 429: [ConcurrencyExceeded, ErrorBody] },
});

export const cancelExec = operation({
  method: 'post',
  path: '/sandboxes/{id}/exec/cancel',
  operationId: 'cancelExec',
  summary: 'Cancel an exec in flight by the id of its `start` event (SIGTERM, then SIGKILL)',
  request: ExecCancelRequest,
  // Not strict: an unknown parameter is ignored here, as it always was (exec and logs refuse one).
  query: NamespaceQuery,
  responses: { 202: CancelAccepted },
  errors: [400, 401, 403, 404, 409, 413, 503],
});

export const getSandboxLogs = operation({
  method: 'get',
  path: '/sandboxes/{id}/logs',
  operationId: 'getSandboxLogs',
  summary:
    "The template process's recent stdout and stderr (the last 1 MiB); `follow=true` with `Accept: text/event-stream` streams `log` events, the kept output first",
  query: LogsQuery,
  responses: { 200: SandboxLogs },
  events: { log: LogEvent },
  errors: [400, 401, 403, 404, 409, 502, 503],
});

/** Exec and logs: code mode's commands and the template process's output. */
export const execOperations = [execSandbox, cancelExec, getSandboxLogs];
