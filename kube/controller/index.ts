// Controller building blocks shared by the operator and devnode.
export { Informer, keyOf, splitKey, isStatus, ignoring, scopesOf } from './informer.ts';
export type { WatchScope } from './informer.ts';
export { Indexer, type IndexFunc } from './indexer.ts';
export {
  Controller,
  ownerByLabel,
  ownerByReference,
  type ControllerOptions,
  type Owned,
  type Watched,
  type OwnerKey,
} from './controller.ts';
export {
  WorkQueue,
  TerminalError,
  DEFAULT_MAX_CONCURRENT,
  type Reconcile,
  type WorkQueueOptions,
} from './queue.ts';
export { systemClock, type Clock } from './clock.ts';
export { DEFAULT_RETRY_LIMITS, type RetryLimits } from './ratelimit.ts';
export { mergePatch, jsonPatch } from './patch.ts';
export { setCondition, type ConditionInput } from './conditions.ts';
export { LeaderElector, type LeaderElectionOptions } from './leader.ts';
export { countingKubeConfig, describeRequest, type RequestListener } from './requests.ts';
export { reuseConnections } from './connections.ts';
