import { McpMessages } from '../../core/index.ts';
import { operation } from '../openapi/route.ts';

/**
 * The MCP server (docs/mcp.md). The SDK's transport reads the body itself and answers the
 * protocol's refusals (406 without both media types in Accept, 415, 400 for a message that is
 * not JSON-RPC) with JSON-RPC errors, not `Error`s: those are its `default`. `GET` and
 * `DELETE` answer 405 (stateless: no stream to open, no session to end) and are no operations.
 */
export const mcpMessage = operation({
  method: 'post',
  path: '/mcp',
  operationId: 'mcpMessage',
  summary:
    'The Model Context Protocol server over Streamable HTTP (stateless, JSON answers): JSON-RPC messages in, their answers out, 202 when none needs one',
  request: McpMessages,
  ownBody: true,
  responses: { 200: McpMessages, 202: undefined },
  errors: [401, 413],
  anyStatus: "The MCP transport's own refusals, as JSON-RPC errors (400, 406, 415)",
});
