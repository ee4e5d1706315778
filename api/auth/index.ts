export type { Caller } from './caller.ts';
export { ApiKeyStore, ApiKeyRecord } from './api-keys.ts';
export { OIDC_ALGORITHMS, OIDC_ALGORITHM_NAMES, OidcVerifier } from './oidc.ts';
export type { OidcAlgorithm, OidcOptions } from './oidc.ts';
export { authenticate, adminCapable, requireAdmin } from './middleware.ts';
export type { AuthOptions } from './middleware.ts';
