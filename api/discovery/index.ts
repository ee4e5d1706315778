export { discoveryRoutes } from './routes.ts';
