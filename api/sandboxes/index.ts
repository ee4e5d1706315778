export { sandboxRoutes, readJson, releaseReservation } from './routes.ts';
export {
  admitCreate,
  ownedSandbox,
  canAccess,
  present,
  requestNamespace,
  requireNamespace,
  recordActivity,
} from './access.ts';
