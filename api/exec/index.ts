export { execRoutes } from './routes.ts';
export { execOperations } from './operations.ts';
export { strictQuery } from './checks.ts';
