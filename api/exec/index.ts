export { execRoutes } from './routes.ts';
export { requireRunning, strictQuery } from './checks.ts';
