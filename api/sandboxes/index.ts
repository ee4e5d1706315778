export { NameGate } from './names.ts';
export { sandboxRoutes, releaseReservation } from './routes.ts';
export { admitCreate, admitUpdate, present } from './access.ts';
