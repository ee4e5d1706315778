// Per-user bounds on calls in flight: exec, invoke, configure and file transfers.
export { DEFAULT_PER_USER_CONCURRENCY, UserSlots } from './slots.ts';
export type { Slot } from './slots.ts';
export { perUserConcurrency } from './middleware.ts';
