export { parseEnvFile } from './env.ts';
export type { E2eEnv } from './env.ts';
export { e2eEnv, sandboxName, svcClient, sandboxObjects } from './cluster.ts';
export { kubectl } from './kubectl.ts';
export { waitUntil } from './wait.ts';
export { tcpProbe } from './probe.ts';
