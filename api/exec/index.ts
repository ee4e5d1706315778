export { execRoutes } from './routes.ts';
