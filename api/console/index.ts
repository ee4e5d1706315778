export { consoleRoutes } from './routes.ts';
export type { ConsoleOptions } from './routes.ts';
