// Runs that outlive their caller as tools: start a detached invoke, list a sandbox's runs,
// read a run's events (replayed from its buffer, then followed to its exit) and cancel one.
// An agent starts a long run, goes on with other work, and comes back for its outcome.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { InvokeQuery, RunEventsQuery, RunId } from '../../core/index.ts';
import { sandboxPath, type Api } from '../api.ts';
import { MAX_TOOL_OUTPUT, ToolFailure, answer, guarded } from '../results.ts';
import { collect, outputs } from './agent.ts';
import { Target } from './target.ts';

const Run = {
  ...Target,
  invokeId: RunId.describe('The run’s id (`invokeId`), as start_agent_run or list_runs gave it'),
};

export function runTools(server: McpServer, api: Api): void {
  server.registerTool(
    'start_agent_run',
    {
      description:
        'Invoke a configured agent sandbox’s entrypoint detached: answers at once with the run’s `invokeId`; the run goes ' +
        'on without a client, to its exit or its timeout. Read its outcome with run_events, stop it with cancel_run.',
      inputSchema: InvokeQuery.pick({ timeout: true }).extend({
        ...Target,
        input: z.string().default('').describe('The entrypoint’s stdin, as UTF-8 text'),
      }),
    },
    ({ sandbox, namespace, timeout, input }, { signal }) =>
      guarded(async () =>
        answer(
          await api.json('POST', sandboxPath(sandbox, '/invoke'), {
            body: input,
            query: { namespace, timeout, detach: 'true' },
            signal,
          }),
        ),
      ),
  );

  server.registerTool(
    'list_runs',
    {
      description:
        'List a sandbox’s runs (exec and invoke): running ones and those ended a short while ago, with state, exit code and duration.',
      inputSchema: z.object(Target).strict(),
      annotations: { readOnlyHint: true },
    },
    ({ sandbox, namespace }, { signal }) =>
      guarded(async () =>
        answer(await api.json('GET', sandboxPath(sandbox, '/runs'), { query: { namespace }, signal })),
      ),
  );

  server.registerTool(
    'run_events',
    {
      description:
        `A run’s outcome: its events replayed from the start (or after \`lastEventId\`) and followed until it exits; answers ` +
        `with its exit, stdout and stderr (each up to ${MAX_TOOL_OUTPUT} characters, head and tail) and the last event id ` +
        'to resume from. Output the run’s buffer no longer holds is reported as `dropped`.',
      inputSchema: z.object({ ...Run, lastEventId: RunEventsQuery.shape.lastEventId }).strict(),
      annotations: { readOnlyHint: true },
    },
    ({ sandbox, namespace, invokeId, lastEventId }, { signal }) =>
      guarded(async () => {
        const res = await api.send(
          'GET',
          sandboxPath(sandbox, `/runs/${encodeURIComponent(invokeId)}/events`),
          {
            query: { namespace, lastEventId },
            headers: { accept: 'text/event-stream' },
            signal,
          },
        );
        const run = await collect(res);
        if (!run.last && run.error) throw new ToolFailure(run.error.code, run.error.message);
        return answer({
          invokeId,
          ...(run.last ?? {}),
          ...outputs(run),
          ...(run.dropped ? { dropped: run.dropped } : {}),
          ...(run.lastEventId !== undefined ? { lastEventId: run.lastEventId } : {}),
          ...(run.error ? { error: run.error } : {}),
        });
      }),
  );

  server.registerTool(
    'cancel_run',
    {
      description:
        'Cancel a running exec or invoke (SIGTERM to its process group, then SIGKILL after a grace).',
      inputSchema: z.object(Run).strict(),
    },
    ({ sandbox, namespace, invokeId }, { signal }) =>
      guarded(async () =>
        answer(
          await api.json('POST', sandboxPath(sandbox, `/runs/${encodeURIComponent(invokeId)}/cancel`), {
            query: { namespace },
            signal,
          }),
        ),
      ),
  );
}
