import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { Scenario } from '../../engine/scenario.ts';

export const simulationStatusSchema = z.enum(['queued', 'completed', 'failed', 'timed_out', 'cancelled']);

export type SimulationStatus = z.infer<typeof simulationStatusSchema>;

const simulationRowSchema = z.object({
  id: z.string(),
  account_id: z.string(),
  api_key_id: z.string().nullable(),
  session_id: z.string().nullable(),
  preset: z.string(),
  profile: z.string(),
  // bigint in the table (seeds reach 2^32 - 1); selected as float8, exact far beyond that, so it is a number.
  seed: z.number(),
  num_interactions: z.number(),
  status: simulationStatusSchema,
  period_start: z.string(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  compute_ms: z.number().nullable(),
});

export type SimulationRow = z.infer<typeof simulationRowSchema>;

const simulationColumns = sql.fragment`
  id, account_id, api_key_id, session_id, preset, profile, seed::float8 AS seed, num_interactions, status, period_start,
  created_at, started_at, finished_at, compute_ms
`;

export interface InsertSimulationInput {
  readonly id: string;
  readonly accountId: string;
  readonly apiKeyId: string | null;
  readonly sessionId: string | null;
  readonly preset: string;
  readonly profile: string;
  readonly seed: number;
  readonly numInteractions: number;
  /** ISO timestamp: the first instant of the UTC month the request counts against. */
  readonly periodStart: string;
  /** The engine's service_version that runs it: a replay runs that engine again. */
  readonly serviceVersion: string;
  /** Engine 3's scenario as validated, or none: a replay needs it to make the same records. */
  readonly scenario?: Scenario | null | undefined;
}

/**
 * Ledger writes commit asynchronously: each one is on the path of a simulation request, and waiting for
 * the WAL flush would cost a disk sync per write (milliseconds) twice per request. The trade, per
 * statement only (the session keeps synchronous_commit on): a PostgreSQL crash, not an application one,
 * can lose the last fraction of a second of ledger writes (up to 3 x wal_writer_delay); it never corrupts
 * or half-applies one. Taking the setting in the statement's own implicit transaction saves the round
 * trips of BEGIN / SET LOCAL / COMMIT.
 */
const asyncCommit = sql.fragment`(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

type Column<T> = readonly [name: string, type: string, value: (row: T) => string | number | null];

/**
 * The ledger row's columns as the batch INSERT writes them, one line each: name, PostgreSQL type, value.
 * A new column is one more line here.
 */
const INSERT_COLUMNS: readonly Column<InsertSimulationInput>[] = [
  ['id', 'uuid', (row) => row.id],
  ['account_id', 'uuid', (row) => row.accountId],
  ['api_key_id', 'uuid', (row) => row.apiKeyId],
  ['session_id', 'uuid', (row) => row.sessionId],
  ['preset', 'text', (row) => row.preset],
  ['profile', 'text', (row) => row.profile],
  ['seed', 'int8', (row) => row.seed],
  ['num_interactions', 'int4', (row) => row.numInteractions],
  ['period_start', 'timestamptz', (row) => row.periodStart],
  ['service_version', 'text', (row) => row.serviceVersion],
  ['scenario', 'jsonb', (row) => (row.scenario === undefined || row.scenario === null ? null : JSON.stringify(row.scenario))],
];

const insertColumnNames = sql.join(
  INSERT_COLUMNS.map(([name]) => sql.identifier([name])),
  sql.fragment`, `,
);

// Built once: zod compiles a schema on its first parse, which per request would show in a profile.
const idRowSchema = z.object({ id: z.string() });
const noRowsSchema = z.object({});

const insertBatch = (rows: readonly InsertSimulationInput[]) => sql.fragment`
  INSERT INTO simulations (${insertColumnNames})
  SELECT ${insertColumnNames}
  FROM ${sql.unnest(
    rows.map((row) => INSERT_COLUMNS.map(([, , value]) => value(row))),
    INSERT_COLUMNS.map(([, type]) => type),
  )} AS batch (${insertColumnNames}), ${asyncCommit}
  ON CONFLICT (id) DO NOTHING
`;

export interface FinishSimulationInput {
  readonly id: string;
  readonly status: Exclude<SimulationStatus, 'queued'>;
  /** ISO timestamps; startedAt is null when the run never started (or nobody knows when it did). */
  readonly startedAt: string | null;
  readonly finishedAt: string;
  readonly computeMs: number | null;
  /** Interactions the run counts against the quota; null when it counts no request (given back whole). */
  readonly chargedInteractions: number | null;
}

const finishBatch = (rows: readonly FinishSimulationInput[]) => sql.fragment`
  UPDATE simulations
  SET status = batch.status, started_at = batch.started_at, finished_at = batch.finished_at, compute_ms = batch.compute_ms,
    charged_interactions = batch.charged_interactions
  FROM ${sql.unnest(
    rows.map((row) => [row.id, row.status, row.startedAt, row.finishedAt, row.computeMs, row.chargedInteractions]),
    ['uuid', 'text', 'timestamptz', 'timestamptz', 'int4', 'int4'],
  )} AS batch (id, status, started_at, finished_at, compute_ms, charged_interactions), ${asyncCommit}
  WHERE simulations.id = batch.id
    AND (simulations.status = 'queued' OR (simulations.status = batch.status AND simulations.finished_at = batch.finished_at))
  RETURNING simulations.id
`;

/**
 * Ledger writes of many requests in one statement, so one commit: new rows (admissions) and settlements.
 * Returns the ids of the rows this call settled.
 *
 * Admissions: idempotent; a row already there (an earlier attempt whose acknowledgement was lost) is left
 * as it is, so a retry is always safe.
 *
 * Settlements: a row moves out of `queued` once: a row already settled by someone else (the stale-run
 * sweeper) is left alone, so a late settlement never turns a timeout into a completion or counts a run
 * twice. A row that already holds exactly this settlement (same status and finished_at, to the
 * microsecond) is one an earlier attempt wrote before its acknowledgement was lost: it is reported as
 * settled, so a retry is idempotent. A settlement sees only rows committed before the statement: settle a
 * run only once its admission was written.
 */
export const writeLedger = async (
  connection: CommonQueryMethods,
  batch: { readonly inserts: readonly InsertSimulationInput[]; readonly finishes: readonly FinishSimulationInput[] },
): Promise<readonly string[]> => {
  // PostgreSQL plans every statement afresh: a batch of one kind (most batches when the ledger is not
  // busy) is sent as that statement alone, which plans in about half the time of the combined one.
  if (batch.finishes.length === 0) {
    await connection.query(sql.type(noRowsSchema)`${insertBatch(batch.inserts)}`);
    return [];
  }
  if (batch.inserts.length === 0) {
    return connection.anyFirst(sql.type(idRowSchema)`${finishBatch(batch.finishes)}`);
  }
  return connection.anyFirst(sql.type(idRowSchema)`
    WITH inserted AS (${insertBatch(batch.inserts)}), settled AS (${finishBatch(batch.finishes)})
    SELECT id FROM settled
  `);
};

export const findSimulation = async (connection: CommonQueryMethods, id: string): Promise<SimulationRow | null> =>
  connection.maybeOne(sql.type(simulationRowSchema)`SELECT ${simulationColumns} FROM simulations WHERE id = ${id}`);
