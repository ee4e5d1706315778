export { execRoutes } from './routes.ts';
export { execOperations } from './operations.ts';
export { strictQuery } from './checks.ts';
// The one `requireRunning`, for the groups that take it from here (usage).
export { requireRunning } from '../sandboxes/index.ts';
export { relayEvents } from './relay.ts';
