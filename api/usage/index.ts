export { usageRoutes } from './routes.ts';
