export { agentRoutes } from './routes.ts';
export { readBounded, refusalOutcome, sandboxdOf, templateOf } from './checks.ts';
