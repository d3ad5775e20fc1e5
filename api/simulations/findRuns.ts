import {
  findSimulationRun,
  listKeyPrefixes,
  listSimulationRuns,
  type ListSimulationRunsInput,
  type SimulationRunRow,
} from '../../shared/db/queries/simulationRuns.ts';
import { accountRunKeys } from '../limits/limitKeys.ts';
import type { Services } from '../Services.ts';
import { type InflightEntry, isoMicros, parseInflightEntry } from './inflightEntry.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An in-flight run as the history shows it: `queued` until its one ledger row is written. */
const toRow = (id: string, entry: InflightEntry, keyPrefixes: ReadonlyMap<string, string>): SimulationRunRow => ({
  id,
  preset: entry.r.preset,
  profile: entry.r.profile,
  seed: entry.r.seed,
  num_interactions: entry.r.numInteractions,
  status: 'queued',
  created_at: new Date(Math.floor(entry.t / 1000)).toISOString(),
  finished_at: null,
  compute_ms: null,
  service_version: entry.r.serviceVersion,
  scenario: entry.r.scenario ?? null,
  api_key_id: entry.r.apiKeyId,
  key_prefix: entry.r.apiKeyId === null ? null : (keyPrefixes.get(entry.r.apiKeyId) ?? null),
  cursor_at: isoMicros(entry.t),
});

const newestFirst = (a: SimulationRunRow, b: SimulationRunRow): number =>
  a.cursor_at === b.cursor_at ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.cursor_at < b.cursor_at ? 1 : -1;

/** The account's runs Redis holds in flight (no ledger row yet, or one being written), as history rows. */
const readInflightRuns = async (services: Services, accountId: string, ids?: readonly string[]): Promise<SimulationRunRow[]> => {
  const { inflight } = accountRunKeys(services.redisPrefix, accountId);
  let raw: [string, string | null][];
  if (ids === undefined) {
    raw = Object.entries(await services.redis.hgetall(inflight));
  } else {
    const values = ids.length === 0 ? [] : await services.redis.hmget(inflight, ...ids);
    raw = ids.map((id, index) => [id, values[index] ?? null]);
  }
  const entries: [string, InflightEntry][] = [];
  for (const [id, value] of raw) {
    const entry = value === null ? undefined : parseInflightEntry(value);
    // A run that never began leaves no row and is no run of the history.
    if (entry !== undefined && (entry.s === 'run' || (entry.f !== null && entry.f !== undefined))) {
      entries.push([id, entry]);
    }
  }
  const keyIds = [...new Set(entries.flatMap(([, entry]) => (entry.r.apiKeyId === null ? [] : [entry.r.apiKeyId])))];
  const keyPrefixes = await listKeyPrefixes(services.pool, keyIds);
  return entries.map(([id, entry]) => toRow(id, entry, keyPrefixes));
};

/**
 * One page of the account's history: the ledger's rows merged with the runs still in flight, which have
 * no row until they settle (api/simulations/createRunLease.ts), by the same keyset (created_at to the µs,
 * id), newest first. A run settling meanwhile may be in both: the ledger's row wins.
 */
export const listRuns = async (services: Services, input: ListSimulationRunsInput): Promise<readonly SimulationRunRow[]> => {
  const wantsQueued = input.status === undefined || input.status === 'queued';
  const [rows, inflight] = await Promise.all([
    listSimulationRuns(services.pool, input),
    wantsQueued ? readInflightRuns(services, input.accountId) : Promise.resolve([]),
  ]);
  if (inflight.length === 0) {
    return rows;
  }
  const { after } = input;
  const recorded = new Set(rows.map((row) => row.id));
  const pending = inflight.filter(
    (row) =>
      !recorded.has(row.id) &&
      (input.preset === undefined || row.preset === input.preset) &&
      (after === undefined || row.cursor_at < after.createdAt || (row.cursor_at === after.createdAt && row.id < after.id)),
  );
  return [...rows, ...pending].sort(newestFirst).slice(0, input.limit);
};

/** One run of the account, recorded or in flight, or null (unknown, malformed, another account's). */
export const findRun = async (services: Services, input: { accountId: string; id: string }): Promise<SimulationRunRow | null> => {
  const row = await findSimulationRun(services.pool, input);
  if (row !== null || !UUID.test(input.id.toLowerCase())) {
    return row;
  }
  const [inflight] = await readInflightRuns(services, input.accountId, [input.id.toLowerCase()]);
  return inflight ?? null;
};
