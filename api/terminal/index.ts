export { terminalRoutes, TICKET_TTL_MS } from './routes.ts';
export { terminalUpgrade, TERMINAL_PATH } from './upgrade.ts';
