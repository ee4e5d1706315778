export { Governance, candidateOf } from './enforce.ts';
export type { CreateInput, CreateReads } from './enforce.ts';
export { PolicyStore, PolicyMalformedError, CLUSTER_KEY } from './store.ts';
export type { StoredPolicies } from './store.ts';
export { CredentialGate, NamespaceGate, SecretAccessReviewer } from './credentials.ts';
export type { CredentialVerdict } from './credentials.ts';
export { SnapshotOwners } from './snapshots.ts';
