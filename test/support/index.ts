export { adminKubeConfig, useNamespace } from './kube.ts';
export type { TestNamespace } from './kube.ts';
export { kubeRequest } from './raw.ts';
export type { RawResponse } from './raw.ts';
