// The real control plane for tests, benchmarks and `make dev`: etcd + kube-apiserver
// built by hack/kube, on loopback, with svc's CRDs installed.
export { startControlPlane } from './controlplane.ts';
export type { ControlPlane, ControlPlaneOptions } from './controlplane.ts';
export { startEnvironment, kubeAssets, snapshotCrdDir } from './environment.ts';
export type { Environment } from './environment.ts';
export { installCrds, readCrds } from './crds.ts';
export { createCertificateAuthority } from './certs.ts';
export type { CertificateAuthority, KeyPair } from './certs.ts';
export { freePort } from './ports.ts';
export { waitFor } from './processes.ts';
