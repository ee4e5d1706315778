export { NameGate } from './names.ts';
export { sandboxRoutes, readJson, releaseReservation } from './routes.ts';
export {
  admitCreate,
  admitUpdate,
  ownedSandbox,
  canAccess,
  present,
  requestNamespace,
  requireNamespace,
  recordActivity,
} from './access.ts';
export { onOwnedSandbox, requireRunning, type OnSandbox } from './scope.ts';
