import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';

const accountRowSchema = z.object({
  id: z.string(),
  email: z.string(),
  display_name: z.string(),
  is_active: z.boolean(),
  plan: z.string(),
  created_at: z.string(),
});

export type AccountRow = z.infer<typeof accountRowSchema>;

const accountColumns = sql.fragment`id, email, display_name, is_active, plan, created_at`;

export const insertAccount = async (
  connection: CommonQueryMethods,
  input: { email: string; displayName: string; plan: string; isActive?: boolean },
): Promise<AccountRow> =>
  connection.one(sql.type(accountRowSchema)`
    INSERT INTO accounts (email, display_name, plan, is_active)
    VALUES (${input.email}, ${input.displayName}, ${input.plan}, ${input.isActive ?? true})
    RETURNING ${accountColumns}
  `);

export const findAccountById = async (connection: CommonQueryMethods, id: string): Promise<AccountRow | null> =>
  connection.maybeOne(sql.type(accountRowSchema)`
    SELECT ${accountColumns} FROM accounts WHERE id = ${id}
  `);

/** Every account with this address, compared case-insensitively: addresses are not unique (migration 0002). */
export const findAccountsByEmail = async (connection: CommonQueryMethods, email: string): Promise<readonly AccountRow[]> =>
  connection.any(sql.type(accountRowSchema)`
    SELECT ${accountColumns} FROM accounts WHERE lower(email) = lower(${email}) ORDER BY created_at, id
  `);

/**
 * Serializes everyone creating an account with this address until the caller's transaction ends, so that
 * a check for an existing address followed by an insert cannot race.
 */
export const lockAccountEmail = async (connection: CommonQueryMethods, email: string): Promise<void> => {
  await connection.one(sql.type(z.object({ locked: z.number() }))`
    SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtext('accounts.email'), hashtext(lower(${email})))
  `);
};

/**
 * Locks the account row for the caller's transaction and returns its plan's active-key limit: whoever
 * creates a key for this account waits here, so counting and inserting cannot interleave.
 */
export const lockAccountForKeyCreation = async (
  connection: CommonQueryMethods,
  accountId: string,
): Promise<{ id: string; max_active_api_keys: number } | null> =>
  connection.maybeOne(sql.type(z.object({ id: z.string(), max_active_api_keys: z.number() }))`
    SELECT accounts.id, plans.max_active_api_keys
    FROM accounts JOIN plans ON plans.name = accounts.plan
    WHERE accounts.id = ${accountId}
    FOR UPDATE OF accounts
  `);

export const updateAccountPlan = async (
  connection: CommonQueryMethods,
  input: { id: string; plan: string },
): Promise<AccountRow> =>
  connection.one(sql.type(accountRowSchema)`
    UPDATE accounts SET plan = ${input.plan} WHERE id = ${input.id} RETURNING ${accountColumns}
  `);

export const updateAccountActive = async (
  connection: CommonQueryMethods,
  input: { id: string; isActive: boolean },
): Promise<AccountRow> =>
  connection.one(sql.type(accountRowSchema)`
    WITH ended_links AS (
      -- Deactivating ends the account's download links for good (docs/bulk-data.md): they are expired
      -- now, in the same statement, so a later activation does not revive them.
      UPDATE download_links SET expires_at = now()
      WHERE account_id = ${input.id} AND NOT ${input.isActive} AND expires_at > now()
    )
    UPDATE accounts SET is_active = ${input.isActive} WHERE id = ${input.id} RETURNING ${accountColumns}
  `);

const adminAccountRowSchema = accountRowSchema.extend({
  authentication_methods: z.array(z.string()),
  active_api_keys: z.number(),
});

export type AdminAccountRow = z.infer<typeof adminAccountRowSchema>;

/**
 * Accounts as an operator lists them (admin `list-accounts`), oldest first, optionally those with one address
 * (compared case-insensitively): with their linked providers and active keys, so that two accounts sharing
 * an address can be told apart.
 */
export const listAccountsForAdmin = async (connection: CommonQueryMethods, input: { email?: string | undefined }): Promise<readonly AdminAccountRow[]> =>
  connection.any(sql.type(adminAccountRowSchema)`
    SELECT ${accountColumns},
      ARRAY(SELECT provider FROM identities WHERE identities.account_id = accounts.id ORDER BY provider) AS authentication_methods,
      (SELECT count(*)::int FROM api_keys
        WHERE api_keys.account_id = accounts.id AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())) AS active_api_keys
    FROM accounts
    WHERE ${input.email === undefined ? sql.fragment`true` : sql.fragment`lower(email) = lower(${input.email})`}
    ORDER BY created_at, id
  `);
