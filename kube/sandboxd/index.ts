export { SandboxdClient } from './client.ts';
export type { SandboxdAddress, RunResponse } from './client.ts';
