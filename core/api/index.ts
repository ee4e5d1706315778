export * from './sandboxes.ts';
export * from './params.ts';
export * from './keys.ts';
export * from './secrets.ts';
export * from './exec.ts';
export * from './runs.ts';
export * from './usage.ts';
export * from './responses.ts';
