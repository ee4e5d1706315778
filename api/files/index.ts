export { fileRoutes } from './routes.ts';
export { fileOperations } from './operations.ts';
