import { z } from 'zod';
import { apiKeyNameSchema } from '../../../shared/auth/apiKeyName.ts';

export const createApiKeyBodySchema = z.strictObject({
  name: apiKeyNameSchema,
});

export type CreateApiKeyBody = z.infer<typeof createApiKeyBodySchema>;

/** Metadata only: the secret is never shown again. */
export const apiKeyListedSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  key_prefix: z.string(),
  is_active: z.boolean(),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime().nullable(),
  revoked_at: z.iso.datetime().nullable(),
});

export const apiKeyListSchema = z.array(apiKeyListedSchema);

export const apiKeyCreatedSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  /** The raw secret, `bs_live_` and 32 characters of [A-Za-z0-9], shown in this response only. */
  key: z.string().regex(/^bs_live_[A-Za-z0-9]{32}$/),
  key_prefix: z.string(),
  created_at: z.iso.datetime(),
});

export const apiKeyRevokedSchema = z.object({
  status: z.literal('revoked'),
  id: z.uuid(),
});

export type ApiKeyListed = z.infer<typeof apiKeyListedSchema>;
export type ApiKeyCreated = z.infer<typeof apiKeyCreatedSchema>;
export type ApiKeyRevoked = z.infer<typeof apiKeyRevokedSchema>;
