export { keyRoutes } from './routes.ts';
