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
  /** Host address of sandboxd on devnode (`127.0.0.1:<port>`), where a Pod IP is unreachable. */
  sandboxdAddress: 'devnode.svc.io/sandboxd-address',
} as const;

export const Labels = {
  sandbox: 'svc.io/sandbox',
  mode: 'svc.io/mode',
} as const;
