export { mcpRoutes } from './routes.ts';
export { mcpMessage } from './operations.ts';
