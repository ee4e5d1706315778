// Code mode as tools: exec, files, and a forwarded port's preview URL.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ExecRequest, ExecTimeout, PortRequest, type ExecResult } from '../../core/index.ts';
import { ApiFailure, filePath, sandboxPath, type Api } from '../api.ts';
import { MAX_TOOL_OUTPUT, answer, clip, guarded } from '../results.ts';
import { Target, nsQuery } from './target.ts';

/** An exec's timeout when the tool call names none: an agent's command never hangs the session. */
export const DEFAULT_EXEC_TIMEOUT_SECONDS = 300;

const AbsolutePath = z.string().startsWith('/', 'must be an absolute path').max(4096);
const Encoding = z.enum(['utf8', 'base64']).default('utf8');

export function codeTools(server: McpServer, api: Api): void {
  server.registerTool(
    'exec',
    {
      description:
        `Run a command in a sandbox and answer with its exit code, stdout and stderr. A string runs with sh -c, an array is the argv. ` +
        `Each stream is answered up to ${MAX_TOOL_OUTPUT} characters (its head and tail, with a note of what was cut); ` +
        `the timeout defaults to ${DEFAULT_EXEC_TIMEOUT_SECONDS} s.`,
      inputSchema: ExecRequest.extend({
        ...Target,
        timeout: ExecTimeout.default(DEFAULT_EXEC_TIMEOUT_SECONDS).describe(
          `Seconds, or a duration such as 30s (default ${DEFAULT_EXEC_TIMEOUT_SECONDS}; 0 means none)`,
        ),
      }),
    },
    ({ sandbox, namespace, ...body }, { signal }) =>
      guarded(async () => {
        const result = await api.json<ExecResult>('POST', sandboxPath(sandbox, '/exec'), {
          json: body,
          query: { namespace },
          signal,
        });
        const stdout = clip(result.stdout);
        const stderr = clip(result.stderr);
        const notes = [
          ...(stdout.note ? [`stdout: ${stdout.note}`] : []),
          ...(stderr.note ? [`stderr: ${stderr.note}`] : []),
          ...(result.truncated ? ['the API kept only the first 10 MiB of a stream'] : []),
        ];
        return answer({
          ...result,
          stdout: stdout.text,
          stderr: stderr.text,
          ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
        });
      }),
  );

  server.registerTool(
    'read_file',
    {
      description: `Read a file of a sandbox's workspace: its text (utf8) or its bytes as base64, up to ${MAX_TOOL_OUTPUT} bytes from \`offset\`.`,
      inputSchema: z
        .object({
          ...Target,
          path: AbsolutePath,
          encoding: Encoding,
          offset: z.int().min(0).default(0).describe('The first byte to read (default 0)'),
        })
        .strict(),
      annotations: { readOnlyHint: true },
    },
    (args, { signal }) =>
      guarded(async () => {
        const range = `bytes=${args.offset}-${args.offset + MAX_TOOL_OUTPUT - 1}`;
        const res = await api
          .send('GET', filePath(args.sandbox, args.path), {
            query: nsQuery(args),
            headers: { range },
            signal,
          })
          .catch((err: unknown) => {
            // No byte at `offset`: an empty file, or a read past the end.
            if (err instanceof ApiFailure && err.status === 416) return undefined;
            throw err;
          });
        if (!res)
          return answer(
            args.offset === 0 ? '' : { content: '', note: `offset ${args.offset} is past the end` },
          );
        if (res.headers.get('content-type')?.startsWith('application/json')) return answer(await res.json());
        const bytes = new Uint8Array(await res.arrayBuffer());
        const total = Number(res.headers.get('content-range')?.split('/')[1] ?? bytes.length);
        const text = args.encoding === 'base64' ? Buffer.from(bytes).toString('base64') : decode(bytes);
        if (text === undefined)
          return answer({ note: 'the file is not UTF-8 text: read it with encoding base64', size: total });
        if (args.offset + bytes.length >= total) return answer(text);
        return answer({
          content: text,
          note: `bytes ${args.offset}–${args.offset + bytes.length - 1} of ${total}: read on with offset ${args.offset + bytes.length}`,
        });
      }),
  );

  server.registerTool(
    'write_file',
    {
      description: 'Write a file of a sandbox’s workspace (its folders are made), replacing it if it exists.',
      inputSchema: z
        .object({
          ...Target,
          path: AbsolutePath,
          content: z.string().describe('The file’s text, or its bytes as base64 with encoding base64'),
          encoding: Encoding,
          mode: z
            .string()
            .regex(/^0?[0-7]{3,4}$/, 'must be octal, such as 0644')
            .optional(),
        })
        .strict(),
    },
    (args, { signal }) =>
      guarded(async () => {
        const body =
          args.encoding === 'base64'
            ? Buffer.from(args.content, 'base64')
            : Buffer.from(args.content, 'utf8');
        return answer(
          await api.json('PUT', filePath(args.sandbox, args.path), {
            body,
            query: { ...nsQuery(args), mode: args.mode },
            signal,
          }),
        );
      }),
  );

  server.registerTool(
    'list_files',
    {
      description:
        'List a folder of a sandbox’s workspace: each entry’s name, path, size, type, mode and time.',
      inputSchema: z.object({ ...Target, path: AbsolutePath.default('/workspace') }).strict(),
      annotations: { readOnlyHint: true },
    },
    (args, { signal }) =>
      guarded(async () =>
        answer(
          await api.json('GET', sandboxPath(args.sandbox, '/files'), {
            query: { ...nsQuery(args), path: args.path },
            signal,
          }),
        ),
      ),
  );

  server.registerTool(
    'forward_port',
    {
      description:
        'Forward a port of a sandbox (a server listening there) and answer with its preview URL, which takes the same credential as the API.',
      inputSchema: PortRequest.extend(Target),
      annotations: { idempotentHint: true },
    },
    ({ sandbox, namespace, ...body }, { signal }) =>
      guarded(async () => {
        const forwarded = await api.json('POST', sandboxPath(sandbox, '/ports'), {
          json: body,
          query: { namespace },
          signal,
        });
        const previewUrl = api.url(sandboxPath(sandbox, `/preview/${body.port}/`), { namespace });
        return answer({ ...forwarded, previewUrl });
      }),
  );
}

/** The bytes as UTF-8 text, or undefined when they are not (a cut at the end is allowed). */
function decode(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
  } catch {
    return undefined;
  }
}
