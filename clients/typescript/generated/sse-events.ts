// Generated from api/openapi.json by clients/typescript/codegen/generate.ts; do not edit.
// Regenerate with `make client-types` (a unit test fails when this file drifts).

import type { components } from './openapi.ts';

type Schemas = components['schemas'];

/** Per streaming operation: each SSE event name and the type of its (JSON) data. */
export interface SseEvents {
  configureSandbox: {
    log: Schemas['LogEvent'];
    result: Schemas['ConfigureResult'];
    error: Schemas['ErrorEvent'];
  };
  execSandbox: {
    start: Schemas['StartEvent'];
    log: Schemas['LogEvent'];
    exit: Schemas['ExitEvent'];
    error: Schemas['ErrorEvent'];
  };
  getRunEvents: {
    start: Schemas['StartEvent'];
    log: Schemas['LogEvent'];
    drop: Schemas['DropEvent'];
    exit: Schemas['ExitEvent'];
    error: Schemas['ErrorEvent'];
  };
  getSandboxLogs: {
    log: Schemas['LogEvent'];
  };
  invokeSandbox: {
    start: Schemas['StartEvent'];
    log: Schemas['LogEvent'];
    exit: Schemas['ExitEvent'];
    error: Schemas['ErrorEvent'];
  };
  listSandboxes: {
    added: Schemas['Sandbox'];
    modified: Schemas['Sandbox'];
    deleted: Schemas['Sandbox'];
  };
}

/** The same event names at run time (a stream skips names it does not know). */
export const sseEventNames = {
  configureSandbox: ['log', 'result', 'error'],
  execSandbox: ['start', 'log', 'exit', 'error'],
  getRunEvents: ['start', 'log', 'drop', 'exit', 'error'],
  getSandboxLogs: ['log'],
  invokeSandbox: ['start', 'log', 'exit', 'error'],
  listSandboxes: ['added', 'modified', 'deleted'],
} as const;
