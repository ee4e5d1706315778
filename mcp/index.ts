// The one door of the MCP server: its tools over any transport, each tool an HTTP API call.
export { createMcpServer } from './server.ts';
export type { McpOptions } from './server.ts';
export type { ApiTarget, Dispatch } from './api.ts';
export { MAX_TOOL_OUTPUT } from './results.ts';
export { DEFAULT_EXEC_TIMEOUT_SECONDS } from './tools/code.ts';
