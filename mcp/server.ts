import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Api, type ApiTarget } from './api.ts';
import { agentTools } from './tools/agent.ts';
import { codeTools } from './tools/code.ts';
import { sandboxTools } from './tools/sandboxes.ts';

export interface McpOptions {
  /** Where the tools send their calls, and as whom. */
  target: ApiTarget;
  /** The server's version in its `initialize` answer. */
  version: string;
}

/**
 * svc's MCP server: one tool per thing an agent does with a sandbox, each an ordinary call
 * of the HTTP API through `target`. Built per connection (per request over stateless HTTP),
 * it holds nothing but its tools.
 */
export function createMcpServer(opts: McpOptions): McpServer {
  const server = new McpServer(
    { name: 'svc', version: opts.version },
    {
      instructions:
        'Sandboxes on Kubernetes: create one from a template (list_templates), run commands in it (exec), ' +
        'read and write its files, forward a port for a preview URL, or configure and invoke it as an agent. ' +
        'Errors carry the API’s code (forbidden, not_found, conflict, …) and message.',
    },
  );
  const api = new Api(opts.target);
  sandboxTools(server, api);
  codeTools(server, api);
  agentTools(server, api);
  return server;
}
