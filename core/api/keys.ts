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
