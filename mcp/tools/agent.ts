// Agent mode as tools: configure (files, entrypoint, install) and invoke. Both answer with
// Server-Sent Events; the tools read the stream to its end and answer with its outcome.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ConfigureRequest, InvokeQuery, SseParser } from '../../core/index.ts';
import { sandboxPath, type Api } from '../api.ts';
import { Clipped, MAX_TOOL_OUTPUT, ToolFailure, answer, guarded } from '../results.ts';
import { Target } from './target.ts';

export function agentTools(server: McpServer, api: Api): void {
  server.registerTool(
    'configure_agent',
    {
      description:
        'Configure an agent sandbox: write its files, record its entrypoint and run its install command once. Answers with the result and the install’s output.',
      inputSchema: ConfigureRequest.extend(Target),
    },
    ({ sandbox, namespace, ...body }, { signal }) =>
      guarded(async () => {
        const res = await api.send('POST', sandboxPath(sandbox, '/configure'), {
          json: body,
          query: { namespace },
          headers: { accept: 'text/event-stream' },
          signal,
        });
        const run = await collect(res);
        if (run.error && !run.last) throw new ToolFailure(run.error.code, run.error.message);
        return answer({
          ...(run.last ?? {}),
          ...outputs(run),
          ...(run.error ? { error: run.error } : {}),
        });
      }),
  );

  server.registerTool(
    'invoke_agent',
    {
      description:
        `Invoke a configured agent sandbox's entrypoint with \`input\` as its stdin; answers once it exits with its exit code, ` +
        `stdout and stderr (each up to ${MAX_TOOL_OUTPUT} characters, head and tail).`,
      // Only the query's timeout: a detached invoke answers differently and is its own tool.
      inputSchema: InvokeQuery.pick({ timeout: true }).extend({
        ...Target,
        input: z.string().default('').describe('The entrypoint’s stdin, as UTF-8 text'),
      }),
    },
    ({ sandbox, namespace, timeout, input }, { signal }) =>
      guarded(async () => {
        const res = await api.send('POST', sandboxPath(sandbox, '/invoke'), {
          body: input,
          query: { namespace, timeout },
          headers: { accept: 'text/event-stream' },
          signal,
        });
        const run = await collect(res);
        if (!run.last)
          throw new ToolFailure(run.error?.code ?? 'sandbox_error', run.error?.message ?? 'no exit');
        return answer({
          invokeId: run.start?.invokeId,
          ...run.last,
          ...outputs(run),
          ...(run.error ? { error: run.error } : {}),
        });
      }),
  );
}

interface Collected {
  start?: { invokeId?: string };
  stdout: Clipped;
  stderr: Clipped;
  /** The `exit` or `result` event. */
  last?: Record<string, unknown>;
  error?: { code: string; message: string };
}

/** Reads an SSE answer to its end, holding only what the answer shows of its output. */
async function collect(res: Response): Promise<Collected> {
  const run: Collected = { stdout: new Clipped(), stderr: new Clipped() };
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const body = (res.body ?? []) as AsyncIterable<Uint8Array>;
  for await (const chunk of body) {
    for (const m of parser.push(decoder.decode(chunk, { stream: true }))) {
      const data = JSON.parse(m.data) as Record<string, unknown>;
      if (m.event === 'start') run.start = data;
      else if (m.event === 'log') {
        const text = typeof data.data === 'string' ? data.data : '';
        run[data.stream === 'stderr' ? 'stderr' : 'stdout'].push(text);
      } else if (m.event === 'error') run.error = data as Collected['error'];
      else if (m.event === 'exit' || m.event === 'result') run.last = data;
    }
  }
  return run;
}

/** stdout and stderr bounded, and a note when either was cut. */
function outputs(run: Collected): Record<string, string> {
  const stdout = run.stdout.result();
  const stderr = run.stderr.result();
  const notes = [stdout.note && `stdout: ${stdout.note}`, stderr.note && `stderr: ${stderr.note}`].filter(
    Boolean,
  );
  return {
    stdout: stdout.text,
    stderr: stderr.text,
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  };
}
