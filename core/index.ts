// The one door of core: shapes (zod), names and pure rules shared by every component.
export * from './sandbox/index.ts';
export * from './crd/index.ts';
export * from './api/index.ts';
export * from './governance/index.ts';
export * from './runs/index.ts';
export * from './sse/index.ts';
export * from './agent/index.ts';
export * from './sandboxd/index.ts';
export * from './egress/index.ts';
