import { z } from 'zod';
import { SandboxSpec } from '../sandbox/index.ts';
import { SandboxStatus } from '../sandbox/index.ts';

/**
 * The API's answers, as the OpenAPI document describes them and as handlers are typed
 * against them (api/openapi/route.ts): an answer that does not match fails `tsc`.
 */

/** A Sandbox as the API presents it: its id, name and namespace beside the object. */
export const PresentedSandbox = z
  .object({
    sandboxId: z.string().meta({ description: 'The sandbox’s id in API paths: its name' }),
    name: z.string(),
    namespace: z.string(),
    apiVersion: z.literal('svc.io/v1alpha1'),
    kind: z.literal('Sandbox'),
    metadata: z.object({ name: z.string(), namespace: z.string() }).catchall(z.unknown()),
    spec: SandboxSpec,
    status: SandboxStatus,
  })
  .meta({ id: 'Sandbox' });
export const SandboxList = z
  .object({ items: z.array(PresentedSandbox), continue: z.string().optional() })
  .meta({ id: 'SandboxList' });
/** A delete begun: the finalizers run on. */
export const Accepted = z
  .object({ name: z.string(), namespace: z.string(), message: z.string() })
  .meta({ id: 'Accepted' });

/**
 * The 429 of a sandbox at its cap of concurrent runs (invoke's `maxConcurrentInvokes`, exec's
 * 32): one schema for every operation that can answer it.
 */
export const ConcurrencyExceeded = z
  .object({
    error: z.literal('concurrency_exceeded'),
    limit: z.int(),
    inflight: z.int(),
    message: z.string(),
  })
  .meta({ id: 'ConcurrencyExceeded' });
export type ConcurrencyExceeded = z.infer<typeof ConcurrencyExceeded>;

/** A cancel accepted: of an invoke, an exec or a detached run alike. */
export const CancelAccepted = z
  .object({ invokeId: z.string(), status: z.literal('canceling') })
  .meta({ id: 'CancelAccepted' });

/** The spec's 403 of governance. */
export const PolicyViolation = z
  .object({
    error: z.literal('policy_violation'),
    violations: z.array(z.object({ code: z.string(), message: z.string() })),
  })
  .meta({ id: 'PolicyViolation' });
