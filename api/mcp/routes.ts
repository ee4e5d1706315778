import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import { createMcpServer, type Dispatch } from '../../mcp/index.ts';
import { HttpError } from '../errors/index.ts';
import { route } from '../openapi/index.ts';
import { mcpMessage } from './operations.ts';

/** The credential headers a tool call carries on: the MCP request's own, as it sent them. */
const CREDENTIALS = ['x-api-key', 'authorization'] as const;

/**
 * `POST /api/v1/mcp`: the MCP server over Streamable HTTP, stateless (no session to keep:
 * any replica answers any request). It is reached after `/api/v1`'s authentication and body
 * bound, like every endpoint; each tool then calls the API through `dispatch` (the app
 * itself) with the caller's credential headers, so authorization, limits and audit are the
 * API's own, decided once for HTTP and MCP alike, and every audit record names the caller.
 */
export function mcpRoutes(opts: { dispatch: Dispatch; version: string }): Hono {
  const app = new Hono();

  route(app, mcpMessage, async (c) => {
    const credentials = CREDENTIALS.flatMap((name) => {
      const value = c.req.header(name);
      return value === undefined ? [] : [[name, value] as const];
    });
    const server = createMcpServer({
      version: opts.version,
      target: {
        // Preview URLs are the caller's: the origin it reached this API at.
        base: `${new URL(c.req.url).origin}/api/v1`,
        // A client that goes away mid-call ends the call's exec or invoke, as over HTTP.
        signal: c.req.raw.signal,
        dispatch: (request) => {
          for (const [name, value] of credentials) request.headers.set(name, value);
          return opts.dispatch(request);
        },
      },
    });
    // JSON answers, not an SSE stream: every tool answers once, when its call is done.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });

  // Stateless: no stream of the server's own to open (GET), no session to end (DELETE).
  app.on(['GET', 'DELETE'], mcpMessage.path, () => {
    throw new HttpError(
      405,
      'method_not_allowed',
      'the MCP endpoint takes POST only (stateless Streamable HTTP)',
      {
        headers: { allow: 'POST' },
      },
    );
  });

  return app;
}
