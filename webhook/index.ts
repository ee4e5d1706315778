// The one door of the admission webhook.
export { startWebhook, PATHS } from './server.ts';
export type { WebhookOptions } from './server.ts';
export { webhookConfigurations } from './configurations.ts';
export type { WebhookConfigurationOptions } from './configurations.ts';
export { webhookCertificates } from './certificates.ts';
export type { WebhookCertificateOptions, WebhookCertificates } from './certificates.ts';
export { checkImmutable, IMMUTABLE_FIELDS } from './immutable.ts';
export { setCreatedBy } from './created-by.ts';
export type { AdmissionRequest, Verdict } from './review.ts';
export { GOVERNED_FIELDS, governanceAdmission } from './governance.ts';
export { reservedEnvAdmission } from './reserved-env.ts';
export { snapshotAdmission } from './snapshots.ts';
export { warmPoolAdmission } from './warmpool.ts';
export { credentialAdmission, firstRefusal, namespaceAdmission, sandboxAdmission } from './credentials.ts';
export { WebhookMetrics } from './metrics.ts';
