import { z } from 'zod';

/** `POST /api/v1/apikeys` (admin): who the new key authenticates as. */
export const CreateApiKeyRequest = z
  .object({
    user: z.string().min(1).max(256),
    groups: z.array(z.string().min(1)).max(64).default([]),
    admin: z.boolean().default(false),
  })
  .strict()
  .meta({ id: 'CreateApiKeyRequest' });
export type CreateApiKeyRequest = z.infer<typeof CreateApiKeyRequest>;

/** What a key maps to; stored as JSON under the key's SHA-256 in the Secret. */
export const ApiKeyRecord = z.object({
  id: z.string(),
  user: z.string().min(1),
  groups: z.array(z.string()).default([]),
  admin: z.boolean().default(false),
  createdAt: z.string(),
});
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;

/** A key as listed: never the key itself. */
export const ApiKey = ApiKeyRecord.meta({ id: 'ApiKey' });
export const ApiKeyList = z.object({ items: z.array(ApiKey) }).meta({ id: 'ApiKeyList' });
export const CreatedApiKey = ApiKeyRecord.extend({
  key: z.string().meta({ description: 'The key itself: shown once, never again' }),
}).meta({ id: 'CreatedApiKey' });
