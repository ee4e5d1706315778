import { z } from 'zod';
import { MAX_SANDBOX_NAME } from '../crd/index.ts';
import { SandboxSpec, TemplateRef, reservedEnvIssues } from '../sandbox/index.ts';

/** RFC 1123 label, also short enough for the names svc derives from a sandbox name. */
export const SandboxName = z
  .string()
  .max(MAX_SANDBOX_NAME, `must be at most ${MAX_SANDBOX_NAME} characters`)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be an RFC 1123 label: lower-case letters, digits and -');

export const NamespaceName = z
  .string()
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be an RFC 1123 label');

/** A DNS-1123 subdomain, the shape of most Kubernetes object names (Secrets, classes, templates). */
export const KubeObjectName = z
  .string()
  .max(253, 'must be at most 253 characters')
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
    'must be a Kubernetes object name (RFC 1123 subdomain): lower-case letters, digits, - and .',
  );

/**
 * `createdBy` in a request body: accepted, so a body copied from a GET is not refused, and
 * always overwritten with the authenticated caller (as the webhook does for `kubectl apply`).
 */
const IgnoredCreatedBy = z
  .string()
  .max(512)
  .optional()
  .meta({ description: 'Ignored: the service sets createdBy to the authenticated caller.' });

/**
 * `POST /api/v1/sandboxes`: a name, a namespace (else `?namespace=` or the default) and
 * the Sandbox spec. `cloneFromSnapshot` is the service's to set (clone), so a body carrying
 * it is refused; `createdBy` is accepted and replaced by the caller.
 */
export const CreateSandboxRequest = SandboxSpec.omit({ cloneFromSnapshot: true })
  .extend({
    name: SandboxName,
    namespace: NamespaceName.optional(),
    // Copied into Events and object names: control characters there break kubectl.
    templateRef: TemplateRef.extend({ name: KubeObjectName }),
    createdBy: IgnoredCreatedBy,
  })
  .strict()
  // sandboxd's own settings (its token among them) are not the sandbox's to set.
  .superRefine((spec, ctx) => {
    for (const issue of reservedEnvIssues(spec)) ctx.addIssue({ code: 'custom', ...issue, input: spec });
  })
  .meta({ id: 'CreateSandboxRequest' });
export type CreateSandboxRequest = z.infer<typeof CreateSandboxRequest>;

export const CloneRequest = z
  .object({
    name: SandboxName.optional(),
    snapshotClass: KubeObjectName.optional(),
    /** Only the source's own namespace is accepted; present so a cross-namespace ask gets a clear 400. */
    namespace: NamespaceName.optional(),
    createdBy: IgnoredCreatedBy,
  })
  .strict()
  .meta({ id: 'CloneRequest' });
export type CloneRequest = z.infer<typeof CloneRequest>;

export const CloneResponse = z
  .object({
    sandboxId: z.string().meta({ description: 'The new sandbox’s id: its name' }),
    name: z.string(),
    namespace: z.string(),
    snapshot: z.string(),
    clonedFrom: z.string(),
    phase: z.literal('Pending'),
    message: z.string(),
  })
  .meta({ id: 'CloneResponse' });
export type CloneResponse = z.infer<typeof CloneResponse>;

export const PortRequest = z
  .object({
    port: z.int().min(1).max(65535),
    protocol: z.enum(['http']).default('http'),
  })
  .strict()
  .meta({ id: 'PortRequest' });

export const ErrorBody = z
  .object({ error: z.string(), message: z.string() })
  .catchall(z.unknown())
  .meta({ id: 'Error' });
