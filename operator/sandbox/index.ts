// The Sandbox controller: one step per concern, over shared informers.
export { SandboxReconciler, type SandboxReconcilerOptions } from './reconcile.ts';
export { OWNED_KINDS, type OwnedKind } from './owned.ts';
export { snapshotSource, type Snapshots } from './snapshots.ts';
export { EVICTED_EVENTS, eventIndexes, sandboxOfEvent } from './evictions.ts';
export type { Found, Pass, SandboxCaches, StepResult } from './context.ts';
