import { z } from 'zod';
import { sql } from 'slonik';
import { expireStaleSimulations } from '../../shared/db/queries/usage.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import { monthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import { scanKeys } from '../../shared/redis/scanKeys.ts';
import { accountOfInflightKey, inflightKeyPattern, limitKeys } from '../limits/limitKeys.ts';
import { STALE_MARGIN_MS, SWEEP_INTERVAL_MS, SWEPT_INFLIGHT_TTL_S } from '../limits/limitPolicy.ts';
import type { RunDependencies } from './RunDependencies.ts';
import { encodeInflightEntry, type InflightEntry, ledgerRowOf, parseInflightEntry } from '../limits/inflightEntry.ts';
import { releaseSimulation } from '../limits/releaseSimulation.ts';


const settledRowSchema = z.object({ status: z.string(), charged_interactions: z.number().nullable() });

/**
 * Settles one stale in-flight entry the way its dead process would have: a run still `run` times out
 * (its reservation given back) unless its row was written after all (its process settled it in the
 * ledger but not in Redis: then what the row charged stands); a `settled` one gets the row it leads to.
 * Safe beside a live settlement: settle.lua takes an entry out of `run` once, and the row is written
 * once (ON CONFLICT DO NOTHING). Returns 1 when it settled or finished the entry.
 */
const sweepEntry = async (deps: RunDependencies, accountId: string, id: string, found: InflightEntry): Promise<number> => {
  const keys = limitKeys(deps.redisPrefix, accountId, monthlyPeriod(new Date(found.run.periodStart)).key);
  let entry = found;
  if (entry.state === 'run') {
    const row = await deps.pool.maybeOne(
      sql.type(settledRowSchema)`SELECT status, charged_interactions FROM simulations WHERE id = ${id}`,
    );
    const charged = row?.charged_interactions == null ? { requests: 0, interactions: 0 } : { requests: 1, interactions: row.charged_interactions };
    const settled: InflightEntry = {
      ...entry,
      state: 'settled',
      charged,
      // A row already there is the run's; else the run timed out in its dead process.
      settlement:
        row === null
          ? { status: 'timed_out', startedAt: null, finishedAt: new Date().toISOString(), computeMs: null, chargedInteractions: null }
          : null,
    };
    const ours = await deps.limitScripts.settle(keys, { runId: id, ...charged, entry: encodeInflightEntry(settled), ttlS: SWEPT_INFLIGHT_TTL_S });
    if (!ours) {
      return 0;
    }
    entry = settled;
  }
  const row = ledgerRowOf(entry);
  if (row !== undefined) {
    await deps.ledger.write(row);
  }
  await deps.limitScripts.forget(keys, { runIds: [id] });
  return 1;
};

/**
 * Settles the runs of API processes that died while waiting: in-flight entries (Redis) long past their
 * lease, and ledger rows still `queued` (written by an earlier version of the service, which recorded
 * admissions in the ledger). Safe on every API process at once. Returns how many runs it settled.
 */
export const sweepStaleSimulations = async (deps: RunDependencies, now = Date.now()): Promise<number> => {
  let swept = 0;
  const staleBefore = now - STALE_MARGIN_MS;
  for await (const key of scanKeys(deps.redis, inflightKeyPattern(deps.redisPrefix))) {
    const accountId = accountOfInflightKey(deps.redisPrefix, key);
    if (accountId === undefined) {
      continue;
    }
    const entries = await deps.redis.hgetall(key);
    for (const [id, raw] of Object.entries(entries)) {
      const entry = parseInflightEntry(raw);
      if (entry !== undefined && entry.leaseUntilMs < staleBefore) {
        swept += await sweepEntry(deps, accountId, id, entry);
      }
    }
  }
  const legacy = await expireStaleSimulations(deps.pool, deps.config.simulationTimeoutMs + STALE_MARGIN_MS);
  for (const row of legacy) {
    await releaseSimulation(deps, {
      accountId: row.account_id,
      simulationId: row.id,
      period: monthlyPeriod(new Date(row.period_start)),
      numInteractions: row.num_interactions,
    });
  }
  return swept + legacy.length;
};

export const startStaleSweeper = (deps: RunDependencies, intervalMs = SWEEP_INTERVAL_MS): (() => void) => {
  const timer = setInterval(() => {
    sweepStaleSimulations(deps).catch((error: unknown) => {
      deps.logger.warn({ error: describeError(error) }, 'stale simulation sweep failed');
    });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
};
