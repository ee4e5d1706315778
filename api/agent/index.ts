export { agentRoutes } from './routes.ts';
export { readBounded, refusalOutcome, sandboxdOf, templateOf, unreachable } from './checks.ts';
