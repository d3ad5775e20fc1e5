import { listKeyPrefixes, type SimulationRunRow } from '../../shared/db/queries/simulationRuns.ts';
import { accountRunKeys } from '../limits/limitKeys.ts';
import type { Services } from '../Services.ts';
import { type InflightEntry, isoMicros, parseInflightEntry } from './inflightEntry.ts';

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
  model_version: entry.r.model?.version ?? null,
  model_digest: entry.r.model?.digest ?? null,
  api_key_id: entry.r.apiKeyId,
  key_prefix: entry.r.apiKeyId === null ? null : (keyPrefixes.get(entry.r.apiKeyId) ?? null),
  cursor_at: isoMicros(entry.t),
});

/** The account's runs Redis holds in flight (not settled yet), as history rows. */
export const readInflightRuns = async (services: Services, accountId: string, ids?: readonly string[]): Promise<SimulationRunRow[]> => {
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
    // Settled entries are on their way out: their row is (or is about to be) the ledger's.
    if (entry !== undefined && entry.s === 'run') {
      entries.push([id, entry]);
    }
  }
  const keyIds = [...new Set(entries.flatMap(([, entry]) => (entry.r.apiKeyId === null ? [] : [entry.r.apiKeyId])))];
  const keyPrefixes = await listKeyPrefixes(services.pool, keyIds);
  return entries.map(([id, entry]) => toRow(id, entry, keyPrefixes));
};

