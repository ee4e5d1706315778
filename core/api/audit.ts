import { z } from 'zod';

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
  })
  .meta({ id: 'AuditRecord' });
export const AuditList = z
  .object({ items: z.array(AuditRecord), continue: z.string().optional() })
  .meta({ id: 'AuditList' });
