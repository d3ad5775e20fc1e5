import type { CreatedApiKey } from '../../../shared/auth/createApiKey.ts';
import type { ApiKeyRow } from '../../../shared/db/queries/apiKeys.ts';
import type { ApiKeyCreated, ApiKeyListed } from './schema.ts';

export const presentApiKey = (row: ApiKeyRow): ApiKeyListed => ({
  id: row.id,
  name: row.name,
  key_prefix: row.key_prefix,
  is_active: row.revoked_at === null,
  created_at: row.created_at,
  last_used_at: row.last_used_at,
  revoked_at: row.revoked_at,
});

export const presentCreatedApiKey = (created: CreatedApiKey): ApiKeyCreated => ({
  id: created.id,
  name: created.name,
  key: created.key,
  key_prefix: created.keyPrefix,
  created_at: created.createdAt,
});
