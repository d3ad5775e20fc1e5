import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

// Queries of the OAuth login (docs/sign-in.md). Account reads and admin writes live in accounts.ts.

export type IdentityProvider = 'github' | 'google';

const loginAccountRow = z.object({ account_id: z.uuid(), is_active: z.boolean() });

export type LoginAccountRow = z.infer<typeof loginAccountRow>;

/**
 * Serialises concurrent logins that could create the same identity or link the same address, until the
 * transaction ends; two first logins at once must not make two accounts.
 */
export const lockLoginKey = async (connection: CommonQueryMethods, key: string): Promise<void> => {
  await connection.query(sql.type(z.object({ locked: z.string() }))`
    SELECT pg_advisory_xact_lock(hashtextextended(${`login:${key}`}, 0))::text AS locked
  `);
};

/** The account an identity signs in to. */
export const findAccountByIdentity = async (
  connection: CommonQueryMethods,
  input: { readonly provider: IdentityProvider; readonly providerUserId: string },
): Promise<LoginAccountRow | null> =>
  connection.maybeOne(sql.type(loginAccountRow)`
    SELECT accounts.id AS account_id, accounts.is_active
    FROM identities
    JOIN accounts ON accounts.id = identities.account_id
    WHERE identities.provider = ${input.provider} AND identities.provider_user_id = ${input.providerUserId}
  `);

/**
 * The account that another provider's identity with the same address, verified there too, belongs to.
 * Only verified-to-verified links: an unverified address proves nothing about who owns it.
 */
export const findAccountByVerifiedEmail = async (
  connection: CommonQueryMethods,
  input: { readonly email: string; readonly exceptProvider: IdentityProvider },
): Promise<LoginAccountRow | null> =>
  connection.maybeOne(sql.type(loginAccountRow)`
    SELECT accounts.id AS account_id, accounts.is_active
    FROM identities
    JOIN accounts ON accounts.id = identities.account_id
    WHERE lower(identities.email) = lower(${input.email})
      AND identities.email_verified
      AND identities.provider <> ${input.exceptProvider}
      -- An account holds at most one identity per provider.
      AND NOT EXISTS (
        SELECT 1 FROM identities AS same
        WHERE same.account_id = identities.account_id AND same.provider = ${input.exceptProvider}
      )
    ORDER BY identities.created_at, accounts.id
    LIMIT 1
  `);

/**
 * The account an operator made for this address (admin `create-account`) that nobody has signed in to yet:
 * no identity of any provider. Its address was set by the operator, so the first sign-in that proves it
 * (a provider reporting it verified) is the person it was made for; the caller checks that.
 */
export const findUnclaimedAccountByEmail = async (connection: CommonQueryMethods, email: string): Promise<LoginAccountRow | null> =>
  connection.maybeOne(sql.type(loginAccountRow)`
    SELECT accounts.id AS account_id, accounts.is_active
    FROM accounts
    WHERE lower(accounts.email) = lower(${email})
      AND NOT EXISTS (SELECT 1 FROM identities WHERE identities.account_id = accounts.id)
    ORDER BY accounts.created_at, accounts.id
    LIMIT 1
  `);

export const insertLoginAccount = async (
  connection: CommonQueryMethods,
  input: { readonly email: string; readonly displayName: string },
): Promise<LoginAccountRow> =>
  connection.one(sql.type(loginAccountRow)`
    INSERT INTO accounts (email, display_name)
    VALUES (${input.email}, ${input.displayName})
    RETURNING id AS account_id, is_active
  `);

export interface IdentityInput {
  readonly provider: IdentityProvider;
  readonly providerUserId: string;
  readonly accountId: string;
  readonly email: string | null;
  readonly emailVerified: boolean;
}

export const insertIdentity = async (connection: CommonQueryMethods, input: IdentityInput): Promise<void> => {
  await connection.query(sql.type(z.object({ provider: z.string() }))`
    INSERT INTO identities (provider, provider_user_id, account_id, email, email_verified)
    VALUES (${input.provider}, ${input.providerUserId}, ${input.accountId}, ${input.email}, ${input.emailVerified})
    RETURNING provider
  `);
};

/** Keeps an identity's address as its provider last reported it, so later link decisions use current facts. */
export const updateIdentityEmail = async (
  connection: CommonQueryMethods,
  input: Omit<IdentityInput, 'accountId'>,
): Promise<void> => {
  await connection.query(sql.type(z.object({ provider: z.string() }))`
    UPDATE identities SET email = ${input.email}, email_verified = ${input.emailVerified}
    WHERE provider = ${input.provider} AND provider_user_id = ${input.providerUserId}
    RETURNING provider
  `);
};
