import { z } from 'zod';
import type { ConcurrencyExceeded } from '../api/responses.ts';

export const RunKind = z.enum(['install', 'invoke', 'exec']);
export type RunKind = z.infer<typeof RunKind>;

/**
 * What sandboxd runs: the first line of a `POST /runs` body, as JSON; the rest of the
 * body is the process's stdin, streamed byte for byte.
 */
export const RunSpec = z.object({
  runId: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/),
  kind: RunKind,
  argv: z.array(z.string()).min(1).max(1024),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().startsWith('/').default('/workspace'),
  /** Wall-clock cap; 0 means none. */
  timeoutMs: z.int().min(0).default(0),
  /** Answer 202 at once and run with no client; the events stay readable (sandboxd/internal/runs/detach.go). */
  detach: z.boolean().optional(),
});
export type RunSpec = z.infer<typeof RunSpec>;
export type RunSpecInput = z.input<typeof RunSpec>;

export const ExitReason = z.enum(['completed', 'canceled', 'timeout', 'error']);
export type ExitReason = z.infer<typeof ExitReason>;

/** SSE `start`: the first event of a run. */
export const StartEvent = z
  .object({ invokeId: z.string(), startedAt: z.string() })
  .meta({ id: 'StartEvent' });
/** SSE `log`: a chunk of output, UTF-8, never splitting a character. */
export const LogEvent = z
  .object({ stream: z.enum(['stdout', 'stderr']), data: z.string() })
  .meta({ id: 'LogEvent' });
/** SSE `exit`: the last event of a run. `exitCode` is -1 when canceled, 128+n for death by signal n. */
export const ExitEvent = z
  .object({ invokeId: z.string(), exitCode: z.int(), durationMs: z.int().min(0), reason: ExitReason })
  .meta({ id: 'ExitEvent' });
/** SSE `error`: the stream failed (sandbox unreachable, died mid-stream); an `exit` with reason `error` follows. */
export const ErrorEvent = z.object({ code: z.string(), message: z.string() }).meta({ id: 'ErrorEvent' });

export type StartEvent = z.infer<typeof StartEvent>;
export type LogEvent = z.infer<typeof LogEvent>;
export type ExitEvent = z.infer<typeof ExitEvent>;
export type ErrorEvent = z.infer<typeof ErrorEvent>;

/** The 429 body when a sandbox is at its `maxConcurrentInvokes`. */
export type ConcurrencyExceededBody = ConcurrencyExceeded;

export const concurrencyExceeded = (limit: number, inflight: number): ConcurrencyExceededBody => ({
  error: 'concurrency_exceeded',
  limit,
  inflight,
  message: `this sandbox runs at most ${limit} concurrent invokes and ${inflight} are in flight; retry after 5 seconds`,
});

/** Seconds a throttled caller is told to wait (the spec's `Retry-After: 5`). */
export const RETRY_AFTER_SECONDS = 5;

/** The manifest line of a `PUT /files` body; the files' bytes follow, back to back. */
export const FileManifest = z.object({
  files: z
    .array(
      z.object({
        path: z.string().min(1).max(4096),
        size: z.int().min(0),
        mode: z.int().min(0).max(0o7777).optional(),
      }),
    )
    .max(10_000),
});
export type FileManifest = z.infer<typeof FileManifest>;
