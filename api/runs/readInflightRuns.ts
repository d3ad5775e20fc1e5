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
  preset: entry.r.preset,
  profile: entry.r.profile,
  seed: entry.r.seed,
  num_interactions: entry.r.numInteractions,
  status: entry.f?.status ?? 'queued',
  created_at: new Date(Math.floor(entry.t / 1000)).toISOString(),
  finished_at: entry.f?.finishedAt ?? null,
  compute_ms: entry.f?.computeMs ?? null,
  service_version: entry.r.serviceVersion,
  scenario: entry.r.scenario ?? null,
  timing: entry.r.timing ?? null,
  model_version: entry.r.model?.version ?? null,
  model_digest: entry.r.model?.digest ?? null,
  api_key_id: entry.r.apiKeyId,
  key_prefix: entry.r.apiKeyId === null ? null : (keyPrefixes.get(entry.r.apiKeyId) ?? null),
  cursor_at: isoMicros(entry.t),
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
    if (entry !== undefined && (entry.s === 'run' || (options.settled === true && entry.f !== undefined && entry.f !== null))) {
      entries.push([id, entry]);
    }
  }
  const keyIds = [...new Set(entries.flatMap(([, entry]) => (entry.r.apiKeyId === null ? [] : [entry.r.apiKeyId])))];
  const keyPrefixes = await listKeyPrefixes(deps.pool, keyIds);
  return entries.map(([id, entry]) => toRow(id, entry, keyPrefixes));
};

