import { type CommonQueryMethods, type FragmentSqlToken, sql } from 'slonik';
import { z } from 'zod';
import { scenarioSchema } from '../../engine/scenarioSchema.ts';
import { runTimingSchema } from '../../engine/runTimingSchema.ts';
import { simulationStatusSchema, type SimulationStatus } from './simulations.ts';

/** A ledger row as the history shows it, with the key prefix of the credential that made it. */
const simulationRunRowSchema = z.object({
  id: z.string(),
  preset: z.string(),
  profile: z.string(),
  // bigint in the table; exact as float8 (seeds stay below 2^32).
  seed: z.number(),
  num_interactions: z.number(),
  status: simulationStatusSchema,
  created_at: z.string(),
  finished_at: z.string().nullable(),
  compute_ms: z.number().nullable(),
  service_version: z.string(),
  // Read back through the wire's schema: jsonb keeps keys in an order of its own, the schema restores the wire's.
  scenario: scenarioSchema.nullable(),
  timing: runTimingSchema.nullable(),
  /** A model run's version and digest (`preset` is the model's name); null for a preset run. */
  model_version: z.number().nullable(),
  model_digest: z.string().nullable(),
  api_key_id: z.string().nullable(),
  key_prefix: z.string().nullable(),
  /** created_at to the microsecond, as text: the cursor's half that a millisecond ISO string would blur. */
  cursor_at: z.string(),
});

export type SimulationRunRow = z.infer<typeof simulationRunRowSchema>;

const runColumns = sql.fragment`
  simulations.id, simulations.preset, simulations.profile, simulations.seed::float8 AS seed, simulations.num_interactions,
  simulations.status, simulations.created_at, simulations.finished_at, simulations.compute_ms, simulations.service_version,
  simulations.scenario, simulations.timing, simulations.model_version, simulations.model_digest,
  simulations.api_key_id, api_keys.key_prefix,
  to_char(simulations.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at
`;

/** Where the previous page ended: the last row's (created_at to the microsecond, id). */
export interface RunCursor {
  readonly createdAt: string;
  readonly id: string;
}

export interface ListSimulationRunsInput {
  readonly accountId: string;
  readonly limit: number;
  readonly after?: RunCursor;
  readonly preset?: string;
  readonly status?: SimulationStatus;
}

/**
 * One page of an account's runs, newest first, by keyset on (created_at, id): rows inserted while a
 * client pages are newer than its cursor, so they never shift a later page (no run skipped or repeated).
 * Each filter combination has an index ending in (created_at DESC, id DESC) (migration 0008), so a page
 * is one bounded index range read.
 */
export const listSimulationRuns = async (connection: CommonQueryMethods, input: ListSimulationRunsInput): Promise<readonly SimulationRunRow[]> =>
  connection.any(sql.type(simulationRunRowSchema)`${simulationRunsPage(input)}`);

/** The page's statement alone, so `npm run bench:history` can EXPLAIN ANALYZE exactly what is served. */
export const simulationRunsPage = (input: ListSimulationRunsInput): FragmentSqlToken => {
  const conditions = [sql.fragment`simulations.account_id = ${input.accountId}`];
  if (input.preset !== undefined) {
    conditions.push(sql.fragment`simulations.preset = ${input.preset}`);
  }
  if (input.status !== undefined) {
    conditions.push(sql.fragment`simulations.status = ${input.status}`);
  }
  if (input.after !== undefined) {
    conditions.push(sql.fragment`(simulations.created_at, simulations.id) < (${input.after.createdAt}::timestamptz, ${input.after.id}::uuid)`);
  }
  return sql.fragment`
    SELECT ${runColumns}
    FROM simulations
    LEFT JOIN api_keys ON api_keys.id = simulations.api_key_id
    WHERE ${sql.join(conditions, sql.fragment` AND `)}
    ORDER BY simulations.created_at DESC, simulations.id DESC
    LIMIT ${input.limit}
  `;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Never a v4 id (its version nibble is 0), so never a run.
const NO_RUN = '00000000-0000-0000-0000-000000000000';

/**
 * One run of the account, or null. `id` is whatever the client sent: an unknown id, another account's id
 * and a malformed one (looked up as an id no run has) all take the same primary-key lookup and get the
 * same empty answer, so neither the answer nor its timing tells them apart, and no cast error can occur.
 */
export const findSimulationRun = async (connection: CommonQueryMethods, input: { accountId: string; id: string }): Promise<SimulationRunRow | null> =>
  connection.maybeOne(sql.type(simulationRunRowSchema)`
    SELECT ${runColumns}
    FROM simulations
    LEFT JOIN api_keys ON api_keys.id = simulations.api_key_id
    WHERE simulations.id = ${UUID.test(input.id) ? input.id : NO_RUN}::uuid AND simulations.account_id = ${input.accountId}
  `);

const keyPrefixSchema = z.object({ id: z.string(), key_prefix: z.string() });

/** The key prefixes of API keys by id, for runs the history shows before their ledger row exists. */
export const listKeyPrefixes = async (connection: CommonQueryMethods, ids: readonly string[]): Promise<ReadonlyMap<string, string>> => {
  if (ids.length === 0) {
    return new Map();
  }
  const rows = await connection.any(sql.type(keyPrefixSchema)`SELECT id, key_prefix FROM api_keys WHERE id = ANY(${sql.array(ids, 'uuid')})`);
  return new Map(rows.map((row) => [row.id, row.key_prefix]));
};
