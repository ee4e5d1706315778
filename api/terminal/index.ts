export { terminalRoutes } from './routes.ts';
export { terminalUpgrade, TERMINAL_PATH } from './upgrade.ts';
export { TICKET_TTL_MS } from './tickets.ts';
