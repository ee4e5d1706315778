import type { SandboxSpec } from './spec.ts';
import type { SandboxStatus } from './status.ts';
import type { SandboxTemplateSpec } from './template.ts';

/** The subset of Kubernetes object metadata that svc reads and writes. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | Date;
  deletionTimestamp?: string | Date;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }[];
}

/** A Sandbox custom resource as stored by the apiserver (defaults applied). */
export interface Sandbox {
  apiVersion: 'svc.io/v1alpha1';
  kind: 'Sandbox';
  metadata: ObjectMeta;
  spec: SandboxSpec;
  status?: SandboxStatus;
}

export interface SandboxTemplate {
  apiVersion: 'svc.io/v1alpha1';
  kind: 'SandboxTemplate' | 'ClusterSandboxTemplate';
  metadata: ObjectMeta;
  spec: SandboxTemplateSpec;
}

/** Annotations and labels svc writes on objects, in one place. */
export const Annotations = {
  /** RFC 3339 time of the last API call on a sandbox; drives `idleTimeout`. */
  lastActivity: 'svc.io/last-activity',
  /** Source sandbox of a clone, copied by the operator into `status.clonedFrom`. */
  clonedFrom: 'svc.io/cloned-from',
  /** Address of sandboxd on devnode (`unix:/path`), where a Pod IP is unreachable. */
  sandboxdAddress: 'devnode.svc.io/sandboxd-address',
  /** On a Service, devnode's host addresses of its ports: `<port>=127.0.0.1:<hostPort>,…`. */
  hostAddress: 'devnode.svc.io/host-address',
  /** Digest of the files of the last configure (see `filesDigest`); part of `installCommandHash`. */
  configureFiles: 'svc.io/configure-files',
  /**
   * RFC 3339 time of a request to resume (the API's resume writes it; kubectl users may
   * too). An expired sandbox starts again once when it is newer than the expiry.
   */
  resumeRequestedAt: 'svc.io/resume-requested-at',
} as const;

/**
 * The operator's finalizer on a Sandbox: its deletion waits until what it owns is gone and
 * its Pod has stopped. The API writes it with the Sandbox (one write less before the
 * operator can start on it); the operator adds it to a Sandbox created without it.
 */
export const SANDBOX_FINALIZER = 'svc.io/finalizer';

/**
 * Annotations on every audit Event svc writes (the API's and the egress gateway's), so the
 * audit view keeps working after a sandbox is gone.
 */
export const AuditAnnotations = { actor: 'svc.io/actor', owner: 'svc.io/owner' } as const;

export const Labels = {
  sandbox: 'svc.io/sandbox',
  mode: 'svc.io/mode',
} as const;

/** The sandbox Pod's contract between the operator, devnode and the API. */
export const SandboxPod = {
  /** Init container that copies the sandboxd executable into `binDir`. */
  installContainer: 'install-sandboxd',
  /** Main container: sandboxd, which starts the template's command. */
  container: 'sandbox',
  binDir: '/opt/svc',
  tokenDir: '/var/run/svc',
  /** sandboxd's port inside the Pod. */
  port: 9000,
  /** Key of the token in the `<sandbox>-sandboxd` Secret. */
  tokenKey: 'token',
} as const;
