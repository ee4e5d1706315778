// The one door of the API: build the Hono app from its dependencies.
export { createApp } from './app.ts';
export type { ApiDeps } from './deps.ts';
export { DEFAULT_PER_USER_CONCURRENCY } from './limits/index.ts';
export { ApiKeyStore, OIDC_ALGORITHMS, OIDC_ALGORITHM_NAMES, OidcVerifier } from './auth/index.ts';
export type { AuthOptions, Caller, OidcAlgorithm } from './auth/index.ts';
export { SandboxCache, SandboxWriter, SnapshotWriter } from './cluster/index.ts';
export { PreviewTargets, PREVIEW_SESSION_TTL_MS, PREVIEW_TICKET_TTL_MS } from './preview/index.ts';
export { UserSecrets } from './secrets/index.ts';
export { NameGate } from './sandboxes/index.ts';
export { locateAhead } from './request/index.ts';
export { serveApi } from './serve.ts';
export type { ServedApi } from './serve.ts';
export { openApiDocument } from './openapi/index.ts';
export { AuditRecorder } from './audit/index.ts';
export type { AuditRecord } from './audit/index.ts';
export { ApiMetrics } from './metrics/index.ts';
