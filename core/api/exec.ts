import { z } from 'zod';
import { durationMs, isDuration } from '../governance/duration.ts';
import { DetachParam } from './runs.ts';
import { NamespaceName } from './sandboxes.ts';

/** Each of an exec's stdout and stderr is kept up to this many bytes in a JSON answer. */
export const MAX_EXEC_OUTPUT_BYTES = 10 * 1024 * 1024;
/** Largest exec request body (the command, env and stdin, as JSON). */
export const MAX_EXEC_BODY_BYTES = 16 * 1024 * 1024;
/** Concurrent execs per sandbox (sandboxd's cap), apart from `maxConcurrentInvokes`. */
export const MAX_CONCURRENT_EXECS = 32;

/** The longest timeout an exec or invoke may ask for. */
const MAX_TIMEOUT_SECONDS = 7 * 24 * 3600;
const DurationUpToAWeek = z
  .string()
  .max(64)
  .refine(isDuration, 'must be a duration such as 30s or 1m30s')
  .refine((d) => !isDuration(d) || durationMs(d) <= MAX_TIMEOUT_SECONDS * 1000, 'must be at most a week');

/** `timeout`: seconds as a number, or a Go duration such as `30s`; `0` means none. */
export const ExecTimeout = z.union([
  z.number().min(0, 'must be 0 or more seconds').max(MAX_TIMEOUT_SECONDS, 'must be at most a week'),
  DurationUpToAWeek,
]);

/**
 * `POST /sandboxes/{id}/exec`: a command run beside the template's process, with the
 * sandbox's environment and credentials. A string is run with `sh -c`; an array is the argv.
 */
export const ExecRequest = z
  .object({
    command: z.union([
      z
        .string()
        .min(1, 'must not be empty')
        .max(1024 * 1024),
      z.array(z.string()).min(1, 'must name a program').max(1024),
    ]),
    timeout: ExecTimeout.optional(),
    workingDir: z.string().max(4096).optional(),
    env: z
      .record(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name: letters, digits, underscores'),
        z.string(),
      )
      .optional(),
    stdin: z.string().optional(),
  })
  .strict()
  .meta({ id: 'ExecRequest' });
export type ExecRequest = z.infer<typeof ExecRequest>;

/** The JSON answer of an exec (without `Accept: text/event-stream`). */
export const ExecResult = z
  .object({
    exitCode: z.int(),
    stdout: z.string(),
    stderr: z.string(),
    durationMs: z.int().min(0),
    reason: z.enum(['completed', 'canceled', 'timeout', 'error']),
    truncated: z.boolean().meta({ description: 'stdout or stderr was longer than 10 MiB and is cut there' }),
  })
  .meta({ id: 'ExecResult' });
export type ExecResult = z.infer<typeof ExecResult>;

/** `POST /sandboxes/{id}/exec/cancel`. */
export const ExecCancelRequest = z
  .object({ invokeId: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'is not an exec id') })
  .strict()
  .meta({ id: 'ExecCancelRequest' });

/** The query of exec: the namespace, and `detach` (which needs the body's `timeout`). */
export const ExecStartQuery = z.object({ namespace: NamespaceName.optional(), detach: DetachParam }).strict();

/** `GET /sandboxes/{id}/logs`. */
export const LogsQuery = z
  .object({
    namespace: NamespaceName.optional(),
    follow: z.enum(['true', 'false']).optional(),
  })
  .strict();

/** The template process's recent output, oldest first, adjacent chunks of a stream joined. */
export const SandboxLogs = z
  .object({
    entries: z.array(z.object({ stream: z.enum(['stdout', 'stderr']), data: z.string() })),
    truncated: z.boolean().meta({ description: 'older output was dropped (only the last 1 MiB is kept)' }),
    droppedBytes: z.int().min(0),
  })
  .meta({ id: 'SandboxLogs' });
export type SandboxLogs = z.infer<typeof SandboxLogs>;

/** `POST /sandboxes/{id}/invoke`'s query: the namespace and a timeout capping this one invoke. */
export const InvokeQuery = z
  .object({
    namespace: NamespaceName.optional(),
    timeout: DurationUpToAWeek.optional().meta({
      description: 'Caps this invoke; never above the agent’s defaultInvokeTimeout when that is set',
    }),
    detach: DetachParam,
  })
  .strict();
