import { z } from 'zod';
import { NamespaceName } from './sandboxes.ts';

/**
 * The terminal's query, as the document describes it. The API checks it by hand
 * (`api/terminal/checks.ts`), on the plain GET and on the WebSocket upgrade alike, whose
 * refusals (`bad_request` naming the `field`) clients read.
 */
export const TerminalQuery = z.object({
  namespace: NamespaceName.optional(),
  cols: z.coerce.number().int().min(1).max(1000).optional().describe('Columns (default 80)'),
  rows: z.coerce.number().int().min(1).max(1000).optional().describe('Rows (default 24)'),
  command: z
    .string()
    .min(1)
    .max(8192)
    .optional()
    .describe('A program to run (with sh -c) instead of the shell (/bin/bash, else /bin/sh)'),
  ticket: z
    .string()
    .max(4096)
    .optional()
    .describe('A ticket from POST …/terminal/ticket, for clients that cannot send headers (browsers)'),
});

/** A one-use ticket for the terminal's WebSocket. */
export const TerminalTicket = z
  .object({
    ticket: z.string().describe('Opaque; valid once, for this caller and this sandbox'),
    expiresAt: z.iso.datetime().describe('30 seconds after it was issued'),
  })
  .meta({ id: 'TerminalTicket' });
