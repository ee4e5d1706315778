import { SandboxUsage, UsageQuery } from '../../core/index.ts';
import { operation } from '../openapi/route.ts';

/** A sandbox's live usage (see `routes.ts`). */
export const getSandboxUsage = operation({
  method: 'get',
  path: '/sandboxes/{id}/usage',
  operationId: 'getSandboxUsage',
  summary:
    'What the sandbox uses now: CPU, memory, workspace bytes, processes, runs and terminals; with `Accept: text/event-stream` a `usage` event every 2 s until the caller leaves. Not activity for idleTimeout',
  query: UsageQuery,
  responses: { 200: SandboxUsage },
  events: { usage: SandboxUsage },
  errors: [400, 401, 403, 404, 409, 502, 503],
});

export const usageOperations = [getSandboxUsage];
