export { agentRoutes } from './routes.ts';
