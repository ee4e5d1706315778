// Sandboxes' lifecycle as tools: templates, create (and wait), list, get, stop, resume, delete.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CreateSandboxRequest, ListQuery } from '../../core/index.ts';
import { sandboxPath, type Api } from '../api.ts';
import { ToolFailure, answer, guarded } from '../results.ts';
import { InNamespace, Target, WaitSeconds, nsQuery, pause } from './target.ts';

interface Presented {
  status?: { phase?: string; message?: string };
}

export function sandboxTools(server: McpServer, api: Api): void {
  server.registerTool(
    'list_templates',
    {
      description:
        'List the sandbox templates a sandbox can be created from (cluster-wide and the namespace’s).',
      inputSchema: z.object(InNamespace).strict(),
      annotations: { readOnlyHint: true },
    },
    (args, { signal }) =>
      guarded(async () => answer(await api.json('GET', '/templates', { query: nsQuery(args), signal }))),
  );

  server.registerTool(
    'create_sandbox',
    {
      description:
        'Create a sandbox from a template (the body of POST /api/v1/sandboxes). With `wait` (the default) the answer comes once it is Running.',
      inputSchema: CreateSandboxRequest.safeExtend({
        wait: z.boolean().default(true).describe('Answer once the sandbox is Running (default true)'),
        waitSeconds: WaitSeconds.default(300).describe('How long to wait for Running (default 300)'),
      }),
    },
    ({ wait, waitSeconds, ...body }, { signal }) =>
      guarded(async () => {
        const created = await api.json<Presented>('POST', '/sandboxes', {
          json: body,
          query: nsQuery(body),
          signal,
        });
        if (!wait) return answer(created);
        return answer(await untilRunning(api, body.name, body.namespace, waitSeconds * 1000, signal));
      }),
  );

  server.registerTool(
    'list_sandboxes',
    {
      description: 'List your sandboxes (all of them for an admin), with their phase.',
      inputSchema: ListQuery.pick({ namespace: true, mode: true, phase: true, continue: true })
        .extend({ limit: z.int().min(1).max(500).optional().describe('At most this many (default 100)') })
        .strict(),
      annotations: { readOnlyHint: true },
    },
    (args, { signal }) =>
      guarded(async () => {
        const query = { ...args, limit: args.limit === undefined ? undefined : String(args.limit) };
        return answer(await api.json('GET', '/sandboxes', { query, signal }));
      }),
  );

  server.registerTool(
    'get_sandbox',
    {
      description: 'A sandbox: its spec and status (phase, message, forwarded ports, agent configuration).',
      inputSchema: z.object(Target).strict(),
      annotations: { readOnlyHint: true },
    },
    (args, { signal }) =>
      guarded(async () =>
        answer(await api.json('GET', sandboxPath(args.sandbox), { query: nsQuery(args), signal })),
      ),
  );

  for (const [name, verb, description] of [
    [
      'stop_sandbox',
      'stop',
      'Stop a sandbox: its process ends, its workspace is kept (resume starts it again).',
    ],
    ['resume_sandbox', 'resume', 'Resume a stopped sandbox.'],
  ] as const) {
    server.registerTool(
      name,
      { description, inputSchema: z.object(Target).strict(), annotations: { idempotentHint: true } },
      (args, { signal }) =>
        guarded(async () =>
          answer(
            await api.json('POST', sandboxPath(args.sandbox, `/${verb}`), { query: nsQuery(args), signal }),
          ),
        ),
    );
  }

  server.registerTool(
    'delete_sandbox',
    {
      description: 'Delete a sandbox and its workspace.',
      inputSchema: z.object(Target).strict(),
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    (args, { signal }) =>
      guarded(async () =>
        answer(await api.json('DELETE', sandboxPath(args.sandbox), { query: nsQuery(args), signal })),
      ),
  );
}

/** Reads the sandbox until it is Running; a tool error when it is in Error or the time is up. */
async function untilRunning(
  api: Api,
  name: string,
  namespace: string | undefined,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Presented> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await api.json<Presented>('GET', sandboxPath(name), { query: { namespace }, signal });
    const phase = s.status?.phase;
    if (phase === 'Running') return s;
    if (phase === 'Error')
      throw new ToolFailure(
        'sandbox_error',
        `sandbox ${name} is in phase Error: ${s.status?.message ?? 'no message'}`,
      );
    if (Date.now() >= deadline || signal.aborted)
      throw new ToolFailure(
        'timeout',
        `sandbox ${name} was not Running within ${timeoutMs / 1000} s (phase ${phase ?? 'Pending'}); get_sandbox shows it`,
      );
    await pause(500, signal);
  }
}
