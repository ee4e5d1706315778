// What every group's routes share about a request: the sandbox it names, resolved once and
// checked (owner-or-admin, Running), its namespace, and the way to its sandboxd.
export {
  canAccess,
  ownedSandbox,
  recordActivity,
  requestNamespace,
  requireNamespace,
  type SandboxLookup,
} from './sandbox.ts';
export { onOwnedSandbox, requireRunning, type OnSandbox } from './scope.ts';
export { locateAhead } from './ahead.ts';
export { relayEvents } from './relay.ts';
export { readBounded, refusalOutcome, sandboxdOf, templateOf, unreachable } from './sandboxd.ts';
export {
  exitOutcome,
  observed,
  type CallEnd,
  type Observed,
  type ObservedCall,
  type ObservedDeps,
  type Operation,
} from './observed.ts';
