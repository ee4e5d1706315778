export { parseQuantity, compareQuantities, isQuantity } from './quantity.ts';
export type { Quantity as ParsedQuantity } from './quantity.ts';
export { parseDuration, isDuration, exceedsCap, durationMs } from './duration.ts';
export { Policy, resolvePolicy } from './policy.ts';
export { checkCreate, checkConfigure, isCounted, resolveMaxConcurrentInvokes } from './check.ts';
export type { Candidate, Counts, NodeAbilities } from './check.ts';
export { TEMPLATE_ENTRY, imageAllowed, parseTemplateLabel, templateAllowed, templateLabel } from './match.ts';
export { effectiveRuntimeClass } from './runtime.ts';
export { checkEgress } from './egress.ts';
export { checkConfigureLimits, CONFIGURE_LIMITS } from './limits.ts';
export { policyViolationBody } from './violations.ts';
export type { Violation, ViolationCode, PolicyViolationBody } from './violations.ts';
export {
  CredentialMarks,
  RESERVED_SECRET_NAMES,
  SandboxNamespaces,
  mayUseSecret,
  namespaceRefusal,
  neverEnabled,
  referencedSecrets,
  reservedSecretReason,
} from './credentials.ts';
export type { SecretReference, SecretUser } from './credentials.ts';
