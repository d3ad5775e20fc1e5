import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';

const issueSchema = z.object({ path: z.string(), message: z.string() });

const modelRowSchema = z.object({
  name: z.string(),
  version: z.number(),
  digest: z.string(),
  // json (key order kept), parsed by the pool's type parsers; the definition was checked before it was stored.
  definition: z.record(z.string(), z.unknown()),
  warnings: z.array(issueSchema),
  created_at: z.string(),
});

export type ModelRow = z.infer<typeof modelRowSchema>;

const modelSummaryRowSchema = z.object({
  name: z.string(),
  version: z.number(),
  digest: z.string(),
  created_at: z.string(),
  description: z.string(),
});

export type ModelSummaryRow = z.infer<typeof modelSummaryRowSchema>;

const modelRefRowSchema = z.object({ version: z.number(), digest: z.string() });

export type ModelRefRow = z.infer<typeof modelRefRowSchema>;

const modelColumns = sql.fragment`name, version, digest, definition, warnings, created_at`;

/**
 * Locks the account row for the caller's transaction and returns its plan's model limit: every write of
 * the account's models waits here, so counting names and inserting a version cannot interleave (two
 * concurrent PUTs of new names never both see room for one).
 */
export const lockAccountForModels = async (connection: CommonQueryMethods, accountId: string): Promise<{ max_models: number } | null> =>
  connection.maybeOne(sql.type(z.object({ max_models: z.number() }))`
    SELECT plans.max_models
    FROM accounts JOIN plans ON plans.name = accounts.plan
    WHERE accounts.id = ${accountId}
    FOR UPDATE OF accounts
  `);

/** The account's live model names. */
export const countLiveModels = async (connection: CommonQueryMethods, accountId: string): Promise<number> =>
  connection.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(DISTINCT name)::int AS count FROM models WHERE account_id = ${accountId} AND deleted_at IS NULL
  `);

/** The latest live version of a name, or null (unknown, or deleted). */
export const findLatestModel = async (connection: CommonQueryMethods, input: { accountId: string; name: string }): Promise<ModelRow | null> =>
  connection.maybeOne(sql.type(modelRowSchema)`
    SELECT ${modelColumns} FROM models
    WHERE account_id = ${input.accountId} AND name = ${input.name} AND deleted_at IS NULL
    ORDER BY version DESC LIMIT 1
  `);

/**
 * One version of a name, or null. A deleted one only with `deleted: true`: a replay of a recorded run
 * makes it again whatever happened to its model since (docs/models.md#reading-and-deleting).
 */
export const findModelVersion = async (
  connection: CommonQueryMethods,
  input: { accountId: string; name: string; version: number; deleted?: boolean },
): Promise<ModelRow | null> =>
  connection.maybeOne(sql.type(modelRowSchema)`
    SELECT ${modelColumns} FROM models
    WHERE account_id = ${input.accountId} AND name = ${input.name} AND version = ${input.version}
      ${input.deleted === true ? sql.fragment`` : sql.fragment`AND deleted_at IS NULL`}
  `);

/**
 * The live version a run of `name` (or `name@version`) uses, without its definition: one probe of the
 * primary key. Versions never change, so the caller may keep definitions by (account, name, version) and
 * this answer can never make it serve a stale one.
 */
export const findModelRef = async (
  connection: CommonQueryMethods,
  input: { accountId: string; name: string; version?: number | undefined },
): Promise<ModelRefRow | null> =>
  connection.maybeOne(sql.type(modelRefRowSchema)`
    SELECT version, digest FROM models
    WHERE account_id = ${input.accountId} AND name = ${input.name} AND deleted_at IS NULL
      ${input.version === undefined ? sql.fragment`` : sql.fragment`AND version = ${input.version}`}
    ORDER BY version DESC LIMIT 1
  `);

/**
 * A new version of a name: one more than any version the name ever had, deleted ones included (a deleted
 * version's number stays its runs' forever). The caller holds the account lock.
 */
export const insertModelVersion = async (
  connection: CommonQueryMethods,
  input: { accountId: string; name: string; digest: string; definition: unknown; warnings: readonly { path: string; message: string }[] },
): Promise<ModelRow> =>
  connection.one(sql.type(modelRowSchema)`
    INSERT INTO models (account_id, name, version, digest, definition, warnings)
    SELECT ${input.accountId}, ${input.name}, coalesce(max(version), 0) + 1, ${input.digest},
      ${sql.json(input.definition as Parameters<typeof sql.json>[0])}, ${sql.jsonb(input.warnings.map((w) => ({ path: w.path, message: w.message })))}
    FROM models WHERE account_id = ${input.accountId} AND name = ${input.name}
    RETURNING ${modelColumns}
  `);

/** The account's live models, latest version each, the most recently written first. */
export const listModels = async (connection: CommonQueryMethods, accountId: string): Promise<readonly ModelSummaryRow[]> =>
  connection.any(sql.type(modelSummaryRowSchema)`
    SELECT * FROM (
      SELECT DISTINCT ON (name) name, version, digest, created_at, definition->>'description' AS description
      FROM models WHERE account_id = ${accountId} AND deleted_at IS NULL
      ORDER BY name, version DESC
    ) AS latest
    ORDER BY created_at DESC, name
  `);

/** Marks every live version of a name deleted; false when there was none. */
export const deleteModel = async (connection: CommonQueryMethods, input: { accountId: string; name: string }): Promise<boolean> => {
  const rows = await connection.anyFirst(sql.type(z.object({ version: z.number() }))`
    UPDATE models SET deleted_at = now()
    WHERE account_id = ${input.accountId} AND name = ${input.name} AND deleted_at IS NULL
    RETURNING version
  `);
  return rows.length > 0;
};
