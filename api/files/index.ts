export { fileRoutes } from './routes.ts';
export { fileOperations } from './openapi.ts';
