import { z } from 'zod';
import { NamespaceName } from './sandboxes.ts';

/**
 * `detach=true` on invoke and exec: the answer is `202 DetachedRun` at once and the run goes
 * on with no client connected, to its exit or its timeout (`Prefer: respond-async` asks the
 * same). Its events stay readable at `eventsUrl` for a while after it ends.
 */
export const DetachParam = z.enum(['true', 'false']).optional().meta({
  description:
    'true: answer 202 with the run’s id at once; the run goes on without a client (Prefer: respond-async is the same)',
});

/** A run's id: an invoke's `inv-…`, an exec's `exec-…` (the `invokeId` of its `start` event). */
export const RunId = z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'is not a run id');

/** The 202 answer of a detached invoke or exec. */
export const DetachedRun = z
  .object({
    invokeId: z.string(),
    eventsUrl: z
      .string()
      .meta({ description: 'GET it for the run’s events: replayed, then followed to `exit`' }),
  })
  .meta({ id: 'DetachedRun' });
export type DetachedRun = z.infer<typeof DetachedRun>;

/** One run as `GET /sandboxes/{id}/runs` lists it: in flight, or ended and still kept. */
export const RunSummary = z
  .object({
    invokeId: z.string(),
    kind: z.enum(['exec', 'invoke']),
    state: z.enum(['running', 'exited']),
    startedAt: z.string(),
    exitCode: z.int().nullable().meta({ description: 'null while running' }),
    durationMs: z.int().min(0).nullable().meta({ description: 'null while running' }),
    reason: z.enum(['completed', 'canceled', 'timeout', 'error']).optional(),
    detached: z.boolean(),
  })
  .meta({ id: 'RunSummary' });
export type RunSummary = z.infer<typeof RunSummary>;

export const RunList = z.object({ items: z.array(RunSummary) }).meta({ id: 'RunList' });
export type RunList = z.infer<typeof RunList>;

/**
 * SSE `drop` in a replay: the run's buffer overflowed and this many of its oldest `log`
 * events (this many bytes of output) are gone; its `id` is the last of them.
 */
export const DropEvent = z
  .object({ droppedBytes: z.int().min(0), droppedEvents: z.int().min(0) })
  .meta({ id: 'DropEvent' });
export type DropEvent = z.infer<typeof DropEvent>;

/** `GET /sandboxes/{id}/runs/{invokeId}/events`' query: `lastEventId` is Last-Event-ID's equivalent. */
export const RunEventsQuery = z
  .object({
    namespace: NamespaceName.optional(),
    lastEventId: z
      .string()
      .regex(/^\d{1,15}$/, 'must be an event id: an integer ≥ 0')
      .optional()
      .meta({ description: 'Replay only the events after this id (the Last-Event-ID header says the same)' }),
  })
  .strict();
