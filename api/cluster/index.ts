export { SandboxCache } from './sandbox-cache.ts';
export type { SandboxChange } from './sandbox-cache.ts';
export { fromKube, kubeHttpError, statusCode } from './kube-errors.ts';
export { SandboxWriter } from './sandboxes.ts';
export { SnapshotWriter } from './snapshots.ts';
