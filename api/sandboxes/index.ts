export { sandboxRoutes, readJson } from './routes.ts';
export { admitCreate, ownedSandbox, canAccess, present, requestNamespace, recordActivity } from './access.ts';
