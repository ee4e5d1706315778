export type { Caller } from './caller.ts';
export { ApiKeyStore, ApiKeyRecord } from './api-keys.ts';
export { OidcVerifier } from './oidc.ts';
export type { OidcOptions } from './oidc.ts';
export { authenticate, adminCapable } from './middleware.ts';
export type { AuthOptions } from './middleware.ts';
