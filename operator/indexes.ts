import type { KubernetesObject } from '@kubernetes/client-node';
import { Labels, WarmPool, type Sandbox } from '../core/index.ts';
import type { IndexFunc } from '../kube/index.ts';

/**
 * The operator's informer indexes (client-go's `Indexers`), so its lookups are map reads
 * rather than a filter over every cached object on every pass or event. Values carry the
 * namespace, since one informer may watch several.
 */
export const Index = {
  /** Owned kinds, by the sandbox label: `namespace/sandbox`. */
  sandbox: 'sandbox',
  /** Sandboxes and warm pools, by the template they name: see `templateValue`. */
  template: 'template',
  /** Sandboxes, by the VolumeSnapshot they are cloned from: `namespace/snapshot`. */
  snapshot: 'snapshot',
  /** Warm-pool members, by their pool's label: `namespace/pool`. */
  pool: 'pool',
} as const;

/**
 * A template's index value: a ClusterSandboxTemplate is one whatever the namespace of who
 * names it; a SandboxTemplate is its namespace's own.
 */
export function templateValue(kind: string, namespace: string | undefined, name: string | undefined): string {
  return kind === 'ClusterSandboxTemplate' ? `${kind}/${name}` : `${kind}/${namespace}/${name}`;
}

/** `namespace/value` of a label, or nothing when the object has none. */
export function byLabel(label: string): IndexFunc<KubernetesObject> {
  return (o) => {
    const value = o.metadata?.labels?.[label];
    return value ? [`${o.metadata?.namespace}/${value}`] : [];
  };
}

/** Filed by the template named in `spec.templateRef` (Sandboxes and SandboxWarmPools alike). */
export const byTemplate: IndexFunc<KubernetesObject> = (o) => {
  const ref = (o as Sandbox).spec?.templateRef;
  return ref?.kind && ref.name ? [templateValue(ref.kind, o.metadata?.namespace, ref.name)] : [];
};

/** Sandboxes filed by `spec.cloneFromSnapshot`. */
export const bySnapshot: IndexFunc<KubernetesObject> = (o) => {
  const snapshot = (o as Sandbox).spec?.cloneFromSnapshot;
  return snapshot ? [`${o.metadata?.namespace}/${snapshot}`] : [];
};

export const sandboxIndexes = { [Index.template]: byTemplate, [Index.snapshot]: bySnapshot };
export const ownedIndexes = { [Index.sandbox]: byLabel(Labels.sandbox) };
export const poolIndexes = { [Index.template]: byTemplate };
export const memberIndexes = { [Index.pool]: byLabel(WarmPool.poolLabel) };
