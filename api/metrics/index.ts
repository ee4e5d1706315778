export { ApiMetrics } from './metrics.ts';
export type { Outcome } from './metrics.ts';
