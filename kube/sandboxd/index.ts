export { SandboxdClient } from './client.ts';
export type {
  OpenedRun,
  RunResponse,
  SandboxdAddress,
  SandboxdClientOptions,
  SandboxdRunRecord,
  SandboxdRunItem,
  SandboxdActivity,
} from './client.ts';
export {
  SandboxdLocator,
  SandboxdUnavailable,
  sandboxdAddressOf,
  type SandboxdLocatorOptions,
} from './locate.ts';
export { SandboxdKeySecret, type SandboxdKeySource } from './key.ts';
export { TerminalStream, TerminalFrame, type TerminalOptions, type TerminalOpening } from './terminal.ts';
export { readRaw, type ReadAnswer, type SandboxdTarget } from './read.ts';
