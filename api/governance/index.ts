export { governanceRoutes } from './routes.ts';
