import { z } from 'zod';
import { apiKeyNameSchema } from '../../../shared/auth/apiKeyName.ts';

export const createApiKeyBodySchema = z.strictObject({
  name: apiKeyNameSchema,
});

/** Metadata only: the secret is never shown again. */
const apiKeyListedSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  key_prefix: z.string(),
  is_active: z.boolean(),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime().nullable(),
  revoked_at: z.iso.datetime().nullable(),
  /** Null unless the key was rolled: it authenticates until this instant. */
  expires_at: z.iso.datetime().nullable(),
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

/** A replay of an idempotent creation (Idempotent-Replayed: true): the created form without `key`. */
export const apiKeyReplayedSchema = apiKeyCreatedSchema.omit({ key: true });

export const rollApiKeyRequestSchema = z.strictObject({
  /** Seconds the previous key keeps working; 0 revokes it at once. */
  expires_in: z.number().int().min(0).max(604800).default(86400),
});

/** The body is optional: none rolls with the default grace period. */
export const rollApiKeyBodySchema = rollApiKeyRequestSchema.optional();

/** The new key's created form, plus when the previous key stops working. */
export const apiKeyRolledSchema = apiKeyCreatedSchema.extend({
  previous_key_expires_at: z.iso.datetime(),
});

export const apiKeyRevokedSchema = z.object({
  status: z.literal('revoked'),
  id: z.uuid(),
});

export type ApiKeyListed = z.infer<typeof apiKeyListedSchema>;
export type ApiKeyCreated = z.infer<typeof apiKeyCreatedSchema>;
export type ApiKeyReplayed = z.infer<typeof apiKeyReplayedSchema>;
export type ApiKeyRolled = z.infer<typeof apiKeyRolledSchema>;
export type ApiKeyRevoked = z.infer<typeof apiKeyRevokedSchema>;
