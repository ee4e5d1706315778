export { portRoutes } from './routes.ts';
