export { sandboxRoutes, readJson } from './routes.ts';
export { ownedSandbox, canAccess, present, requestNamespace, recordActivity } from './access.ts';
