import { z } from 'zod';

/** An egress gateway's decision, as fields of its audit record. */
export const AuditEgress = z
  .object({
    host: z.string(),
    port: z.int(),
    decision: z.enum(['allowed', 'denied']),
    connections: z
      .int()
      .describe('Connections the record stands for: 1, or, with summary, those after the first in a window'),
    summary: z.boolean().describe("A window's like connections after the first, summed"),
    bytesOut: z.int().describe('Bytes from the sandbox to the host'),
    bytesIn: z.int().describe('Bytes from the host back'),
    durationMs: z.int(),
    reason: z.string().nullable().describe('The line a refused tool saw; null when allowed'),
  })
  .meta({ id: 'AuditEgress' });

/** One audit record: a Sandbox's Event as `GET /audit/events` presents it. */
export const AuditRecord = z
  .object({
    id: z.string(),
    time: z.string(),
    reason: z.string(),
    type: z.string(),
    sandbox: z.string(),
    namespace: z.string(),
    actor: z.string().nullable(),
    message: z.string(),
    count: z.int(),
    involvedObject: z.record(z.string(), z.unknown()),
    egress: AuditEgress.optional().describe(
      "On the egress gateway's records (EgressAllowed, EgressDenied): the decision as fields",
    ),
  })
  .meta({ id: 'AuditRecord' });
export const AuditList = z
  .object({ items: z.array(AuditRecord), continue: z.string().optional() })
  .meta({ id: 'AuditList' });
