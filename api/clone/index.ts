export { cloneRoutes } from './routes.ts';
export { cloneOperations } from './operations.ts';
