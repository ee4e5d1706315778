export { sandboxRoutes, readJson } from './routes.ts';
export {
  admitCreate,
  ownedSandbox,
  canAccess,
  present,
  requestNamespace,
  requireNamespace,
  recordActivity,
} from './access.ts';
