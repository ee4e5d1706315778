import { z } from 'zod';

/** A Secret name (RFC 1123 subdomain, as Kubernetes requires). */
export const SecretName = z
  .string()
  .max(253)
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
    'must be an RFC 1123 subdomain: lower-case letters, digits, - and .',
  );

/** A key of a Secret's data, as Kubernetes allows them. */
export const SecretKey = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[-._a-zA-Z0-9]+$/, 'must consist of letters, digits, -, _ and .');

/**
 * `POST /api/v1/secrets`: a Secret of the caller's own. Values are write-only: no answer,
 * log or audit record ever carries them.
 */
export const CreateSecretRequest = z
  .object({
    name: SecretName,
    data: z
      .record(SecretKey, z.string().max(256 * 1024))
      .refine((d) => Object.keys(d).length > 0, 'must hold at least one key')
      .refine((d) => Object.keys(d).length <= 64, 'must hold at most 64 keys'),
  })
  .strict()
  .meta({ id: 'CreateSecretRequest' });
export type CreateSecretRequest = z.infer<typeof CreateSecretRequest>;

/** What the API shows of a user's Secret: never a value. */
export const SecretSummary = z
  .object({
    name: z.string(),
    namespace: z.string(),
    owner: z.string(),
    keys: z.array(z.string()),
    creationTimestamp: z.string().optional(),
  })
  .meta({ id: 'SecretSummary' });
export type SecretSummary = z.infer<typeof SecretSummary>;

export const SecretList = z.object({ items: z.array(SecretSummary) }).meta({ id: 'SecretList' });
