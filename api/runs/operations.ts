import {
  CancelAccepted,
  DropEvent,
  ErrorEvent,
  ExitEvent,
  LogEvent,
  NamespaceQuery,
  RunEventsQuery,
  RunList,
  StartEvent,
} from '../../core/index.ts';
import { operation } from '../openapi/route.ts';

export const listRuns = operation({
  method: 'get',
  path: '/sandboxes/{id}/runs',
  operationId: 'listRuns',
  summary:
    'The sandbox’s invokes and execs: in flight, and ended ones whose events are still kept (15 minutes by default)',
  query: NamespaceQuery.strict(),
  responses: { 200: RunList },
  errors: [400, 401, 403, 404, 409, 503],
});

export const getRunEvents = operation({
  method: 'get',
  path: '/sandboxes/{id}/runs/{invokeId}/events',
  operationId: 'getRunEvents',
  summary:
    'A run’s events, each with an `id:`: replayed from the start, or after `Last-Event-ID` (header) or `lastEventId`, then followed to `exit`. `drop` says how many of the oldest `log` events the buffer lost. Reading leaves the run alone',
  query: RunEventsQuery,
  responses: { 200: undefined },
  events: { start: StartEvent, log: LogEvent, drop: DropEvent, exit: ExitEvent, error: ErrorEvent },
  errors: [400, 401, 403, 404, 409, 503],
});

export const cancelRun = operation({
  method: 'post',
  path: '/sandboxes/{id}/runs/{invokeId}/cancel',
  operationId: 'cancelRun',
  summary: 'Cancel an invoke or exec in flight, attached or detached (SIGTERM, then SIGKILL)',
  query: NamespaceQuery.strict(),
  responses: { 202: CancelAccepted },
  errors: [400, 401, 403, 404, 409, 503],
});

/** A sandbox's runs: list, events (replay and follow), cancel. */
export const runOperations = [listRuns, getRunEvents, cancelRun];
