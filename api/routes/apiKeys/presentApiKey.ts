import { isApiKeyExpired } from '../../../shared/auth/isApiKeyExpired.ts';
import type { CreatedApiKey } from '../../../shared/auth/createApiKey.ts';
import type { ApiKeyRow } from '../../../shared/db/queries/apiKeys.ts';
import type { ApiKeyCreated, ApiKeyListed, ApiKeyReplayed } from './schema.ts';

/** A key past its expires_at lists as revoked at that instant (docs/api.md#api-keys). */
export const presentApiKey = (row: ApiKeyRow, now: Date): ApiKeyListed => {
  const expired = isApiKeyExpired(row.expires_at === null ? null : Date.parse(row.expires_at), now.getTime());
  const revokedAt = row.revoked_at ?? (expired ? row.expires_at : null);
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    is_active: revokedAt === null,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: revokedAt,
    expires_at: row.expires_at,
  };
};

export const presentCreatedApiKey = (created: CreatedApiKey): ApiKeyCreated => ({
  id: created.id,
  name: created.name,
  key: created.key,
  key_prefix: created.keyPrefix,
  created_at: created.createdAt,
});

/** A replayed creation: the created form without the raw key, which exists nowhere any more. */
export const presentReplayedApiKey = (created: ApiKeyCreated): ApiKeyReplayed => ({
  id: created.id,
  name: created.name,
  key_prefix: created.key_prefix,
  created_at: created.created_at,
});
