export { mcpRoutes } from './routes.ts';
