import { z } from 'zod';
import { NamespaceName } from '../../core/index.ts';
import type { Operation } from '../openapi/document.ts';

const TerminalQuery = z.object({
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

const TerminalTicket = z
  .object({
    ticket: z.string().describe('Opaque; valid once, for this caller and this sandbox'),
    expiresAt: z.iso.datetime().describe('30 seconds after it was issued'),
  })
  .meta({ id: 'TerminalTicket' });

/** The terminal's operations (docs/terminal.md has the WebSocket's frames). */
export const terminalOperations: Operation[] = [
  {
    method: 'get',
    path: '/sandboxes/{id}/terminal',
    operationId: 'openTerminal',
    summary:
      'A shell on a pseudo-terminal, over a WebSocket (Upgrade: websocket): binary frames are input and output, text frames JSON control (`resize`) and, last, `{"type":"exit","exitCode":N}`',
    query: TerminalQuery,
    responses: { 101: undefined },
    errors: [400, 401, 403, 404, 409, 426, 429, 502, 503],
  },
  {
    method: 'post',
    path: '/sandboxes/{id}/terminal/ticket',
    operationId: 'createTerminalTicket',
    summary: "A one-use ticket for the terminal's WebSocket (`?ticket=`), valid 30 seconds",
    query: z.object({ namespace: NamespaceName.optional() }),
    responses: { 200: TerminalTicket },
    errors: [400, 401, 403, 404, 409, 503],
  },
];
