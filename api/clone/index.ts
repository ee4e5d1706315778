export { cloneRoutes } from './routes.ts';
