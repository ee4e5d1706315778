export { SandboxdClient } from './client.ts';
export type { RunResponse, SandboxdAddress } from './client.ts';
export { SandboxdLocator, SandboxdUnavailable } from './locate.ts';
