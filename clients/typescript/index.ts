// The TypeScript client of svc: works in Node 20+ and in browsers (no Node module imported).
export { SvcClient, API_PREFIX, everyOperationCovered } from './client.ts';
export type {
  CallOptions,
  ClientOptions,
  ConfigureEvents,
  DetachedRun,
  InvokeOptions,
  RunSummary,
  ExecEvents,
  LogEvents,
  InvokeEvents,
  InvokeInput,
  Phase,
  Sandbox,
  Schemas,
  TerminalOptions,
  WaitOptions,
  WatchEvents,
} from './client.ts';
export { TerminalSession } from './terminal.ts';
export {
  ApiError,
  ConflictError,
  FailedDependencyError,
  ForbiddenError,
  NotFoundError,
  TooManyRequestsError,
  UnauthorizedError,
  errorFromResponse,
  parseRetryAfter,
} from './errors.ts';
export type { Violation } from './errors.ts';
export { EventStream } from './sse.ts';
export type { AttachOptions, RunEvents } from './runs.ts';
export type { StreamEvent } from './sse.ts';
export type { RetryOptions } from './retry.ts';
export type { components, operations, paths } from './generated/openapi.ts';
export type { SseEvents } from './generated/sse-events.ts';
