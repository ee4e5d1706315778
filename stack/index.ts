// The stack starter for tests, benchmarks and `make dev`: etcd + kube-apiserver built by
// hack/kube, on loopback, with svc's CRDs installed; certificates, ports, the processes it
// starts (each dies with its owner), `svc` itself, and the one wait on a condition.
export { startControlPlane } from './controlplane.ts';
export type { ControlPlane, ControlPlaneOptions } from './controlplane.ts';
export { startEnvironment, kubeAssets, snapshotCrdDir } from './environment.ts';
export type { Environment } from './environment.ts';
export { installCrds, readCrds } from './crds.ts';
export { createCertificateAuthority } from './certs.ts';
export type { CertificateAuthority, KeyPair } from './certs.ts';
export { freePort } from './ports.ts';
export { startManaged } from './processes.ts';
export type { Managed, ManagedOptions } from './processes.ts';
export { startSvc } from './svc.ts';
export type { RunningSvc, SvcOptions } from './svc.ts';
export { eventually } from './eventually.ts';
export type { EventuallyOptions } from './eventually.ts';
