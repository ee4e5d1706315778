import { z } from 'zod';

/**
 * One JSON-RPC 2.0 message of the MCP endpoint: a request or notification (`method`), or an
 * answer (`result` or `error`). The MCP SDK's transport checks them; this says their shape.
 */
export const JsonRpcMessage = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.int(), z.null()]).optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'JsonRpcMessage' });

/** `POST /mcp`: one message or a batch of them, in and out. */
export const McpMessages = z.union([JsonRpcMessage, z.array(JsonRpcMessage)]).meta({ id: 'McpMessages' });
