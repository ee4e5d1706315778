import { z } from 'zod';
import type { ObjectMeta } from './resource.ts';
import { SandboxMode, TemplateRef } from './spec.ts';
import { Condition } from './status.ts';

/** `spec` of a SandboxWarmPool: what kind of sandbox to keep ready, and how many. */
export const SandboxWarmPoolSpec = z
  .object({
    templateRef: TemplateRef.describe('The template the members are made from'),
    mode: SandboxMode.default('code').describe(
      'Mode of the sandboxes that may claim a member: code or agent',
    ),
    image: z
      .object({
        repository: z
          .string()
          .min(1)
          .max(512)
          .optional()
          .describe("Image the members run instead of the template's; a Sandbox claims only with the same"),
      })
      .optional()
      .describe("Override of the template's image"),
    replicas: z
      .int()
      .min(0)
      .max(1000)
      .default(1)
      .describe(
        'Ready members to keep (the scale subresource sets it: kubectl scale, a HorizontalPodAutoscaler)',
      ),
  })
  .describe('What the pool keeps ready: members made from this template, mode and image');
export type SandboxWarmPoolSpec = z.infer<typeof SandboxWarmPoolSpec>;

export const SandboxWarmPoolStatus = z
  .object({
    replicas: z.int().min(0).default(0).describe('Unclaimed members, ready or not'),
    readyReplicas: z
      .int()
      .min(0)
      .default(0)
      .describe('Members ready to be claimed: Pod ready, workspace bound, sandboxd answering'),
    selector: z
      .string()
      .max(1024)
      .optional()
      .describe("Label selector of the members' Pods, for the scale subresource (an autoscaler reads it)"),
    observedGeneration: z.int().min(0).optional().describe('metadata.generation the status was written from'),
    conditions: z.array(Condition).max(16).optional().describe('Ready: whether the pool is full'),
  })
  .describe('How many members the pool has and how many are ready');
export type SandboxWarmPoolStatus = z.infer<typeof SandboxWarmPoolStatus>;

export interface SandboxWarmPool {
  apiVersion: 'svc.io/v1alpha1';
  kind: 'SandboxWarmPool';
  metadata: ObjectMeta;
  spec: SandboxWarmPoolSpec;
  status?: SandboxWarmPoolStatus;
}

/** Names and marks of warm-pool members, shared by the operator, the API and tests. */
export const WarmPool = {
  /** On a member's Pod, claim and Secret: the pool it belongs to (removed when claimed). */
  poolLabel: 'svc.io/warm-pool',
  /**
   * On a member's Pod: its pool, kept when the Pod is claimed (the claim changes only
   * `poolLabel` and `Labels.sandbox`). The pool's sandboxd policy selects it, so the API's and
   * operator's way in to sandboxd stays allowed while a NetworkPolicy enforcer reprograms the
   * relabelled Pod from the pool's policy to its sandbox's (kube-router refused connections for
   * a few hundred ms meanwhile).
   */
  memberOfLabel: 'svc.io/warm-member-of',
  /** On a member's Pod: the hash of what it was made from (template, mode, image, settings). */
  fitAnnotation: 'svc.io/warm-fit',
  /**
   * On a Sandbox that claimed a member: the member's name, which names its Pod, claim and
   * token Secret from then on (objects cannot be renamed).
   */
  memberAnnotation: 'svc.io/warm-member',
  /** On a claimed Pod: RFC 3339 time of the claim, where `timeout` and `idleTimeout` start. */
  claimedAtAnnotation: 'svc.io/warm-claimed-at',
  /**
   * On a claimed Pod: the pool it came from. Its sandboxd still holds the pool's token until
   * the claim hands it the sandbox's, and a leader that takes over a claim half done derives
   * that token from the pool.
   */
  claimedFromAnnotation: 'svc.io/warm-claimed-from',
} as const;

/**
 * The name the Pod, workspace claim and token Secret of a sandbox derive from: the member's
 * when it claimed one from a warm pool, else its own.
 */
export function sandboxObjectsName(sandbox: { metadata: ObjectMeta }): string {
  return sandbox.metadata.annotations?.[WarmPool.memberAnnotation] ?? sandbox.metadata.name!;
}
