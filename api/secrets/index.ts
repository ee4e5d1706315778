export { secretRoutes } from './routes.ts';
export { UserSecrets } from './store.ts';
