import { type CommonQueryMethods, sql } from 'slonik';
import { z } from 'zod';
import type { AdmittedRun } from '../../runs/admittedRun.ts';

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

/** How a run ended, as its ledger row records it. */
export const settlementSchema = z.object({
  status: simulationStatusSchema.exclude(['queued']),
  /** ISO timestamps; startedAt is null when the run never started (or nobody knows when it did). */
  startedAt: z.string().nullable(),
  finishedAt: z.string(),
  computeMs: z.number().nullable(),
  /** Interactions the run counts against the quota; null when it counts no request (given back whole). */
  chargedInteractions: z.number().nullable(),
});

export type Settlement = z.infer<typeof settlementSchema>;

/**
 * A run's one ledger row, written when it is settled: the run as admission recorded it
 * (shared/runs/admittedRun.ts), how it ended, and when it was admitted, to the microsecond (Redis TIME),
 * which orders the history.
 */
export type LedgerRowInput = AdmittedRun & Settlement & { readonly createdAt: string };

/**
 * Ledger writes commit asynchronously: each one is on the path of a simulation request, and waiting for
 * the WAL flush would cost a disk sync per write (milliseconds). The trade, per statement only (the
 * session keeps synchronous_commit on): a PostgreSQL crash, not an application one, can lose the last
 * fraction of a second of ledger writes (up to 3 x wal_writer_delay); it never corrupts or half-applies
 * one. Taking the setting in the statement's own implicit transaction saves the round trips of BEGIN /
 * SET LOCAL / COMMIT.
 */
const asyncCommit = sql.fragment`(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

type Column<T> = readonly [name: string, type: string, value: (row: T) => string | number | null];

/**
 * The ledger row's columns as the batch INSERT writes them, one line each: name, PostgreSQL type, value.
 * A new column is one more line here.
 */
const ROW_COLUMNS: readonly Column<LedgerRowInput>[] = [
  ['id', 'uuid', (row) => row.simulationId],
  ['account_id', 'uuid', (row) => row.accountId],
  ['api_key_id', 'uuid', (row) => row.apiKeyId],
  ['session_id', 'uuid', (row) => row.sessionId],
  ['preset', 'text', (row) => row.preset],
  ['profile', 'text', (row) => row.profile],
  ['seed', 'int8', (row) => row.seed],
  ['num_interactions', 'int4', (row) => row.numInteractions],
  ['period_start', 'timestamptz', (row) => row.periodStart],
  ['service_version', 'text', (row) => row.serviceVersion],
  ['scenario', 'jsonb', (row) => (row.scenario === undefined ? null : JSON.stringify(row.scenario))],
  ['timing', 'jsonb', (row) => (row.timing === undefined ? null : JSON.stringify(row.timing))],
  ['model_version', 'int4', (row) => row.model?.version ?? null],
  ['model_digest', 'text', (row) => row.model?.digest ?? null],
  ['status', 'text', (row) => row.status],
  ['created_at', 'timestamptz', (row) => row.createdAt],
  ['started_at', 'timestamptz', (row) => row.startedAt],
  ['finished_at', 'timestamptz', (row) => row.finishedAt],
  ['compute_ms', 'int4', (row) => row.computeMs],
  ['charged_interactions', 'int4', (row) => row.chargedInteractions],
];

const rowColumnNames = sql.join(
  ROW_COLUMNS.map(([name]) => sql.identifier([name])),
  sql.fragment`, `,
);

// Built once: zod compiles a schema on its first parse, which per request would show in a profile.
const idRowSchema = z.object({ id: z.string() });

/**
 * Settled runs' rows, many requests in one statement and one commit (the only ledger write of a run).
 * Idempotent: a row already there (an earlier attempt whose acknowledgement was lost, or the stale-run
 * sweeper's) is left as it is, so a retry is always safe and a run is never recorded twice. Returns the
 * ids this call inserted.
 */
export const writeLedger = async (connection: CommonQueryMethods, rows: readonly LedgerRowInput[]): Promise<readonly string[]> =>
  connection.anyFirst(sql.type(idRowSchema)`
    INSERT INTO simulations (${rowColumnNames})
    SELECT ${rowColumnNames}
    FROM ${sql.unnest(
      rows.map((row) => ROW_COLUMNS.map(([, , value]) => value(row))),
      ROW_COLUMNS.map(([, type]) => type),
    )} AS batch (${rowColumnNames}), ${asyncCommit}
    ON CONFLICT (id) DO NOTHING
    RETURNING id
  `);

export const findSimulation = async (connection: CommonQueryMethods, id: string): Promise<SimulationRow | null> =>
  connection.maybeOne(sql.type(simulationRowSchema)`SELECT ${simulationColumns} FROM simulations WHERE id = ${id}`);
