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

/**
 * The account's runs Redis holds in flight (not settled yet), as history rows; with `settled`, also those
 * settled whose entry is not dropped yet (its row may not be committed: the history and a lookup by id
 * must still find the run then). A settled run that never began leads to no row and is never shown.
 */
export const readInflightRuns = async (
  deps: RunDependencies,
  accountId: string,
  options: { readonly ids?: readonly string[]; readonly settled?: boolean } = {},
): Promise<SimulationRunRow[]> => {
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
  const keyIds = [...new Set(entries.flatMap(([, entry]) => (entry.run.apiKeyId === null ? [] : [entry.run.apiKeyId])))];
  const keyPrefixes = await listKeyPrefixes(deps.pool, keyIds);
  return entries.map(([id, entry]) => toRow(id, entry, keyPrefixes));
};

