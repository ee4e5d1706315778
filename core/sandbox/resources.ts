import { compareQuantities, parseQuantity } from '../governance/quantity.ts';
import type { Quantity } from './primitives.ts';
import type { SandboxSpec } from './spec.ts';
import type { SandboxTemplateSpec } from './template.ts';

/** The resources every sandbox container is limited in. */
export const RESOURCE_NAMES = ['cpu', 'memory', 'ephemeral-storage'] as const;
export type ResourceName = (typeof RESOURCE_NAMES)[number];

/**
 * The limit a sandbox container gets for a resource that neither its Sandbox nor its
 * template limits (the CPU and memory of config/samples' `default` template), so no
 * sandbox Pod is ever unbounded. Governance judges these like any other limit.
 */
export const DEFAULT_LIMITS: Readonly<Record<ResourceName, string>> = {
  cpu: '2',
  memory: '4Gi',
  'ephemeral-storage': '10Gi',
};

/** A container's `resources`, every limit set. */
export interface ContainerResources {
  requests: Partial<Record<ResourceName, string>>;
  limits: Record<ResourceName, string>;
}

/**
 * The resources the sandbox container gets: field by field, the Sandbox's value, else the
 * template's, else for a limit `DEFAULT_LIMITS` (raised to the request should that be
 * higher, so the Pod stays valid and governance sees the real limit). The operator builds
 * the Pod from this and governance judges this, so both see the same numbers.
 *
 * A limit of `0` counts as unset: Kubernetes would read it as "no limit". A default limit
 * does not raise the request: an unset request is written as `0`, where Kubernetes would
 * otherwise copy the limit into it (and reserve 10Gi of a node's disk per sandbox).
 * @example sandboxResources({ resources: { limits: { cpu: '1' } } }, { resources: { limits: {} } })
 *   // { requests: { memory: '0', 'ephemeral-storage': '0' }, limits: { cpu: '1', memory: '4Gi', 'ephemeral-storage': '10Gi' } }
 */
export function sandboxResources(
  template: Pick<SandboxTemplateSpec, 'resources'> | undefined,
  spec: Pick<SandboxSpec, 'resources'>,
): ContainerResources {
  const requests: ContainerResources['requests'] = {};
  const limits = {} as ContainerResources['limits'];
  for (const name of RESOURCE_NAMES) {
    const request = text(spec.resources?.requests?.[name] ?? template?.resources?.requests?.[name]);
    const limit = positive(spec.resources?.limits?.[name]) ?? positive(template?.resources?.limits?.[name]);
    if (limit !== undefined) {
      limits[name] = limit;
      if (request !== undefined) requests[name] = request;
      continue;
    }
    const fallback = DEFAULT_LIMITS[name];
    requests[name] = request ?? '0';
    limits[name] = request !== undefined && isAbove(request, fallback) ? request : fallback;
  }
  return { requests, limits };
}

const text = (q: Quantity | undefined) => (q === undefined ? undefined : String(q));

function positive(q: Quantity | undefined): string | undefined {
  return q === undefined || compareQuantities(parseQuantity(q), parseQuantity(0)) <= 0
    ? undefined
    : String(q);
}

const isAbove = (a: string, b: string) => compareQuantities(parseQuantity(a), parseQuantity(b)) > 0;
