export { portRoutes } from './routes.ts';
export { portOperations } from './operations.ts';
