import { listKeyPrefixes, type SimulationRunRow } from '../../shared/db/queries/simulationRuns.ts';
import { accountRunKeys } from '../limits/limitKeys.ts';
import type { RunDependencies } from './RunDependencies.ts';
import { type InflightEntry, isoMicros, parseInflightEntry } from '../limits/inflightEntry.ts';

/**
 * An in-flight run as the history shows it: `queued` until it settles, then as the ledger row its entry
 * leads to (the row being written meanwhile says the same).
 */
const toRow = (id: string, entry: InflightEntry, keyPrefixes: ReadonlyMap<string, string>): SimulationRunRow => ({
  id,
  preset: entry.run.preset,
  profile: entry.run.profile,
  seed: entry.run.seed,
  num_interactions: entry.run.numInteractions,
  status: entry.settlement?.status ?? 'queued',
  created_at: new Date(Math.floor(entry.admittedUs / 1000)).toISOString(),
  finished_at: entry.settlement?.finishedAt ?? null,
  compute_ms: entry.settlement?.computeMs ?? null,
  service_version: entry.run.serviceVersion,
  scenario: entry.run.scenario ?? null,
  timing: entry.run.timing ?? null,
  model_version: entry.run.model?.version ?? null,
  model_digest: entry.run.model?.digest ?? null,
  api_key_id: entry.run.apiKeyId,
  key_prefix: entry.run.apiKeyId === null ? null : (keyPrefixes.get(entry.run.apiKeyId) ?? null),
  cursor_at: isoMicros(entry.admittedUs),
});

/** A run Redis holds for the account: its history row and what it is charged so far (nothing until it settles). */
export interface PendingRun {
  readonly row: SimulationRunRow;
  /** The period its charge counts in, `YYYY-MM-…` as admission recorded it. */
  readonly periodStart: string;
  readonly charged: { readonly requests: number; readonly interactions: number };
}

/**
 * The account's runs Redis holds in flight (not settled yet), with `settled` also those settled whose
 * entry is not dropped yet: their rows are written after their answers (createRun.ts), so the usage, the
 * history and a lookup by id must still find them then. A settled run that never began leads to no row
 * and is never shown.
 */
export const readPendingRuns = async (
  deps: RunDependencies,
  accountId: string,
  options: { readonly ids?: readonly string[]; readonly settled?: boolean } = {},
): Promise<PendingRun[]> => {
  const { ids } = options;
  const { inflight } = accountRunKeys(deps.redisPrefix, accountId);
  let raw: [string, string | null][];
  if (ids === undefined) {
    raw = Object.entries(await deps.redis.hgetall(inflight));
  } else {
    const values = ids.length === 0 ? [] : await deps.redis.hmget(inflight, ...ids);
    raw = ids.map((id, index) => [id, values[index] ?? null]);
  }
  const entries: [string, InflightEntry][] = [];
  for (const [id, value] of raw) {
    const entry = value === null ? undefined : parseInflightEntry(value);
    if (entry !== undefined && (entry.state === 'run' || (options.settled === true && entry.settlement !== undefined && entry.settlement !== null))) {
      entries.push([id, entry]);
    }
  }
  if (entries.length === 0) {
    return [];
  }
  const keyIds = [...new Set(entries.flatMap(([, entry]) => (entry.run.apiKeyId === null ? [] : [entry.run.apiKeyId])))];
  const keyPrefixes = await listKeyPrefixes(deps.pool, keyIds);
  return entries.map(([id, entry]) => ({
    row: toRow(id, entry, keyPrefixes),
    periodStart: entry.run.periodStart,
    charged: entry.state === 'run' ? { requests: 0, interactions: 0 } : (entry.charged ?? { requests: 0, interactions: 0 }),
  }));
};

/** The account's pending runs as history rows (readPendingRuns). */
export const readInflightRuns = async (
  deps: RunDependencies,
  accountId: string,
  options: { readonly ids?: readonly string[]; readonly settled?: boolean } = {},
): Promise<SimulationRunRow[]> => (await readPendingRuns(deps, accountId, options)).map((pending) => pending.row);
