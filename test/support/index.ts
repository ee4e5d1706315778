export { adminKubeConfig, useNamespace, waitForSandboxPhase } from './kube.ts';
export type { TestNamespace } from './kube.ts';
export { kubeRequest } from './raw.ts';
export type { RawResponse } from './raw.ts';
export { OidcIssuer } from './oidc-issuer.ts';
export { startTestApi } from './api.ts';
export type { TestApi } from './api.ts';
export { useDevnode } from './devnode.ts';
export type { TestDevnode } from './devnode.ts';
export { createClaim, snapshotClaim, readSnapshot, deleteSnapshot } from './snapshots.ts';
export {
  createSandbox,
  createSandboxAs,
  testOperatorSettings,
  useClusterTemplate,
  useOperator,
  shIn,
} from './stack.ts';
export {
  hashedDownload,
  patternStream,
  peakGrowth,
  rawRequest,
  rssMiB,
  startApiProcess,
  tarOf,
} from './transfer.ts';
export type { RawAnswer, TarEntry } from './transfer.ts';
export { API_SA, useWebhook } from './webhook.ts';
export type { TestWebhook, WebhookAdmission } from './webhook.ts';
