// sbx mcp: svc's MCP server over stdio, for a local MCP client (an editor, an agent
// framework) that spawns it. Its tools call the API as every other command does: the
// context's server, key and namespace. Stdout carries the protocol and nothing else.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import pkg from '../../package.json' with { type: 'json' };
import { createMcpServer } from '../../mcp/index.ts';
import { API_PREFIX } from '../../clients/typescript/index.ts';
import { configPath, readConfig, resolveTarget } from '../config.ts';
import type { Invocation } from '../main.ts';

export async function mcp(inv: Invocation): Promise<number> {
  const target = resolveTarget(await readConfig(configPath()), inv.globals);
  const origin = target.server.replace(/\/+$/, '');
  const server = createMcpServer({
    version: pkg.version,
    target: {
      base: origin.endsWith(API_PREFIX) ? origin : origin + API_PREFIX,
      ...(target.namespace !== undefined ? { namespace: target.namespace } : {}),
      dispatch: (request) => {
        if (target.apiKey !== undefined) request.headers.set('x-api-key', target.apiKey);
        return fetch(request);
      },
    },
  });
  const transport = new StdioServerTransport();
  // The session lasts until the client closes stdin (or the process is told to stop).
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
  return 0;
}
