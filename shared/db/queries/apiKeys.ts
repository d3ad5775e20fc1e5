import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import { planRowSchema } from './plans.ts';

const apiKeyRowSchema = z.object({
  id: z.string(),
  account_id: z.string(),
  name: z.string(),
  key_prefix: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  /** Null unless the key was rolled: it works until then. */
  expires_at: z.string().nullable(),
});

export type ApiKeyRow = z.infer<typeof apiKeyRowSchema>;

const apiKeyColumns = sql.fragment`id, account_id, name, key_prefix, created_at, last_used_at, revoked_at, expires_at`;

/** The digest is the only form of the key that reaches the database. */
export const insertApiKey = async (
  connection: CommonQueryMethods,
  input: { accountId: string; name: string; keyDigest: Buffer; keyPrefix: string },
): Promise<ApiKeyRow> =>
  connection.one(sql.type(apiKeyRowSchema)`
    INSERT INTO api_keys (account_id, name, key_digest, key_prefix)
    VALUES (${input.accountId}, ${input.name}, ${sql.binary(input.keyDigest)}, ${input.keyPrefix})
    RETURNING ${apiKeyColumns}
  `);

/** A rolled key in its grace period does not count: a roll never counts against the active-key limit. */
export const countActiveApiKeys = async (connection: CommonQueryMethods, accountId: string): Promise<number> =>
  connection.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM api_keys WHERE account_id = ${accountId} AND revoked_at IS NULL AND expires_at IS NULL
  `);

/**
 * Keys that still authenticate at `now`: not revoked and not past a roll's grace period. Keys in a grace
 * period count here (docs/fair-use.md#api-keys: an account holds at most its active-key limit plus one).
 */
export const countAuthenticatingApiKeys = async (connection: CommonQueryMethods, input: { accountId: string; now: Date }): Promise<number> =>
  connection.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM api_keys
    WHERE account_id = ${input.accountId} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${sql.timestamp(input.now)})
  `);

/** The account's key, locked until the transaction ends, so two rolls of one key take turns. */
export const lockApiKey = async (connection: CommonQueryMethods, input: { accountId: string; id: string }): Promise<ApiKeyRow | null> =>
  connection.maybeOne(sql.type(apiKeyRowSchema)`
    SELECT ${apiKeyColumns} FROM api_keys WHERE id = ${input.id} AND account_id = ${input.accountId} FOR UPDATE
  `);

/** Starts a rolled key's grace period; with `at` null it ends now, at the instant the key was revoked. */
export const setApiKeyExpiry = async (connection: CommonQueryMethods, input: { id: string; at: Date | null }): Promise<string> =>
  connection.oneFirst(sql.type(z.object({ expires_at: z.string() }))`
    UPDATE api_keys SET expires_at = ${input.at === null ? sql.fragment`revoked_at` : sql.timestamp(input.at)}
    WHERE id = ${input.id}
    RETURNING expires_at
  `);

/** Newest first, revoked keys included. */
export const listApiKeys = async (connection: CommonQueryMethods, accountId: string): Promise<readonly ApiKeyRow[]> =>
  connection.any(sql.type(apiKeyRowSchema)`
    SELECT ${apiKeyColumns} FROM api_keys WHERE account_id = ${accountId} ORDER BY created_at DESC, id DESC
  `);

const credentialSchema = z.object({
  api_key_id: z.string(),
  revoked_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  account_id: z.string(),
  account_is_active: z.boolean(),
  plan: z.string(),
  plan_limits: planRowSchema,
});

export type ApiKeyCredential = z.infer<typeof credentialSchema>;

/** What authenticating a request needs, in one indexed lookup (key_digest is unique). */
export const findApiKeyCredential = async (connection: CommonQueryMethods, keyDigest: Buffer): Promise<ApiKeyCredential | null> =>
  connection.maybeOne(sql.type(credentialSchema)`
    SELECT api_keys.id AS api_key_id, api_keys.revoked_at, api_keys.expires_at, accounts.id AS account_id,
      accounts.is_active AS account_is_active, accounts.plan, to_jsonb(plans) AS plan_limits
    FROM api_keys
    JOIN accounts ON accounts.id = api_keys.account_id
    JOIN plans ON plans.name = accounts.plan
    WHERE api_keys.key_digest = ${sql.binary(keyDigest)}
  `);

/**
 * Revokes a key of this account and returns its id, or null when the account has no such key. The update
 * touches only a key still active, so `revoked_at` is written once however many revocations race; a data-
 * modifying CTE always runs, whether or not the outer query reads it.
 */
export const revokeApiKey = async (
  connection: CommonQueryMethods,
  input: { accountId: string; id: string },
): Promise<string | null> =>
  connection.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    WITH target AS (
      SELECT id FROM api_keys WHERE id = ${input.id} AND account_id = ${input.accountId}
    ), revoked AS (
      UPDATE api_keys SET revoked_at = clock_timestamp()
      WHERE id = (SELECT id FROM target) AND revoked_at IS NULL
    )
    SELECT id FROM target
  `);

/** Records a use, at most once a minute per key whoever else is writing. */
export const touchApiKeyLastUsed = async (connection: CommonQueryMethods, id: string): Promise<void> => {
  await connection.query(sql.type(z.object({}))`
    UPDATE api_keys SET last_used_at = now()
    WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
  `);
};
