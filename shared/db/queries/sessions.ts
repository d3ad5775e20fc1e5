import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { planRowSchema } from './plans.ts';

const sessionIdRow = z.object({ id: z.uuid() });

export interface InsertSessionInput {
  readonly id: string;
  readonly accountId: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export const insertSession = async (connection: CommonQueryMethods, input: InsertSessionInput): Promise<void> => {
  await connection.query(sql.type(sessionIdRow)`
    INSERT INTO sessions (id, account_id, created_at, expires_at)
    VALUES (${input.id}, ${input.accountId}, ${sql.timestamp(input.createdAt)}, ${sql.timestamp(input.expiresAt)})
    RETURNING id
  `);
};

const sessionPrincipalRow = z.object({
  session_id: z.uuid(),
  account_id: z.uuid(),
  plan: z.string(),
  plan_limits: planRowSchema,
  is_active: z.boolean(),
});

export type SessionPrincipalRow = z.infer<typeof sessionPrincipalRow>;

/** A session that is neither invalidated nor expired at `now`, with the account it signs in. */
export const findLiveSession = async (
  connection: CommonQueryMethods,
  input: { readonly sessionId: string; readonly now: Date },
): Promise<SessionPrincipalRow | null> =>
  connection.maybeOne(sql.type(sessionPrincipalRow)`
    SELECT sessions.id AS session_id, accounts.id AS account_id, accounts.plan, to_jsonb(plans) AS plan_limits, accounts.is_active
    FROM sessions
    JOIN accounts ON accounts.id = sessions.account_id
    JOIN plans ON plans.name = accounts.plan
    WHERE sessions.id = ${input.sessionId}
      AND sessions.invalidated_at IS NULL
      AND sessions.expires_at > ${sql.timestamp(input.now)}
  `);

/** Ends a session for good; a second call is a no-op. */
export const invalidateSession = async (
  connection: CommonQueryMethods,
  input: { readonly sessionId: string; readonly now: Date },
): Promise<void> => {
  await connection.query(sql.type(sessionIdRow)`
    UPDATE sessions SET invalidated_at = ${sql.timestamp(input.now)}
    WHERE id = ${input.sessionId} AND invalidated_at IS NULL
    RETURNING id
  `);
};

/** Drops an account's sessions that can never authenticate again, so the table does not grow forever. */
export const deleteEndedSessions = async (
  connection: CommonQueryMethods,
  input: { readonly accountId: string; readonly now: Date },
): Promise<void> => {
  await connection.query(sql.type(sessionIdRow)`
    DELETE FROM sessions
    WHERE account_id = ${input.accountId} AND (invalidated_at IS NOT NULL OR expires_at <= ${sql.timestamp(input.now)})
    RETURNING id
  `);
};
