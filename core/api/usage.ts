import { z } from 'zod';
import { NamespaceName } from './sandboxes.ts';

export const UsageQuery = z
  .object({
    namespace: NamespaceName.optional(),
    history: z.coerce
      .number()
      .int()
      .min(0)
      .max(600)
      .optional()
      .describe('Add the CPU and memory samples of the last this many seconds (one a second)'),
  })
  .strict();
export type UsageQuery = z.infer<typeof UsageQuery>;

/** One sample of the Pod's CPU and memory. */
export const UsageSample = z
  .object({
    at: z.string().describe('When the sample was taken (RFC 3339)'),
    cpuCores: z.number().describe('CPU used over the second before, in cores'),
    memoryBytes: z.number().describe('Working set: memory used less the inactive page cache'),
  })
  .meta({ id: 'UsageSample' });
export type UsageSample = z.infer<typeof UsageSample>;

/** `GET /sandboxes/{id}/usage`: the sandbox's figures now, as its sandboxd reads them. */
export const SandboxUsage = z
  .object({
    at: z.string().describe('When the figures were read (RFC 3339)'),
    cpu: z.object({
      cores: z.number().describe('CPU used over the last second, in cores'),
      throttledSeconds: z.number().describe('Time the CPU limit held the sandbox back, since its start'),
      limitCores: z.number().nullable().describe('The CPU limit in cores; null: none'),
    }),
    memory: z.object({
      workingSetBytes: z
        .number()
        .describe('Memory used less the inactive page cache (what the limit counts)'),
      limitBytes: z.number().nullable().describe('The memory limit; null: none'),
    }),
    workspace: z.object({
      usedBytes: z.number().describe("Bytes /workspace's files take"),
      freeBytes: z.number().describe('Bytes still free for /workspace'),
      totalBytes: z.number().describe("Size of /workspace's file system"),
    }),
    processes: z.int().describe('Processes in the sandbox, sandboxd among them'),
    runs: z.object({ exec: z.int(), invoke: z.int(), configure: z.int() }).describe('Runs alive, by kind'),
    terminals: z.int().describe('Terminal sessions open'),
    cgroup: z.boolean().describe("Whether the Pod's cgroup could be read (false: CPU and memory read 0)"),
    history: z.array(UsageSample).optional().describe('With `?history=S`: the samples of the last S seconds'),
  })
  .meta({ id: 'SandboxUsage' });
export type SandboxUsage = z.infer<typeof SandboxUsage>;
