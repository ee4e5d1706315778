import { NamespaceQuery, TerminalQuery, TerminalTicket } from '../../core/index.ts';
import { operation } from '../openapi/route.ts';

/** The terminal's operations (docs/terminal.md has the WebSocket's frames). */
export const openTerminal = operation({
  method: 'get',
  path: '/sandboxes/{id}/terminal',
  operationId: 'openTerminal',
  summary:
    'A shell on a pseudo-terminal, over a WebSocket (Upgrade: websocket): binary frames are input and output, text frames JSON control (`resize`) and, last, `{"type":"exit","exitCode":N}`',
  query: TerminalQuery,
  // Checked by `terminalQuery`, here and on the upgrade alike, after the phase.
  ownQuery: true,
  responses: { 101: undefined },
  errors: [400, 401, 403, 404, 409, 426, 429, 502, 503],
});

export const createTerminalTicket = operation({
  method: 'post',
  path: '/sandboxes/{id}/terminal/ticket',
  operationId: 'createTerminalTicket',
  summary: "A one-use ticket for the terminal's WebSocket (`?ticket=`), valid 30 seconds",
  query: NamespaceQuery,
  responses: { 200: TerminalTicket },
  errors: [400, 401, 403, 404, 409, 503],
});

export const terminalOperations = [openTerminal, createTerminalTicket];
