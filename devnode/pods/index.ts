// The door of devnode's kubelet: the runtime that binds and runs Pods (runtime.ts), one Pod
// (pod.ts, built from rootfs, environment, sandboxd, supervise and status), and the sweep
// of a previous run's leftovers.
export { PodRuntime, type RuntimeDeps } from './runtime.ts';
export type { PodSandbox } from './pod.ts';
export { killLeftovers } from './leftovers.ts';
export { bwrapArgs } from './bwrap.ts';
