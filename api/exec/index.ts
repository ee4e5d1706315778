export { execRoutes } from './routes.ts';
export { requireRunning, strictQuery } from './checks.ts';
export { relayEvents } from './relay.ts';
