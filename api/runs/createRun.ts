import type { Readable } from 'node:stream';
import type { Settlement } from '../../shared/db/queries/simulations.ts';
import { ClientAbortedError } from '../../shared/errors/errors.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import type { MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import type { RunSpecification } from '../../shared/runs/runSpecification.ts';
import type { HeldLease, Reassertion } from '../limits/createLeaseKeeper.ts';
import { encodeInflightEntry, type InflightEntry, isoMicros } from '../limits/inflightEntry.ts';
import { limitKeys } from '../limits/limitKeys.ts';
import { KEEP_PAST_LEASE_MS, periodTtlSeconds } from '../limits/limitPolicy.ts';
import type { SimulationOutcome } from '../simulations/createSimulationClient.ts';
import { executeRun, type RunOptions } from './executeRun.ts';
import type { RunDependencies } from './RunDependencies.ts';

/**
 * An admitted run, the one owner of its life (docs/architecture.md, "A run's life"): what it makes, the
 * slot admission took for it and, for a new run, its quota, its in-flight entry and its ledger row. Each
 * step takes effect at most once (a later call returns the first call's promise), so whatever ends the
 * run (completion, failure, deadline, a client that left, shutdown) frees its slot exactly once, settles
 * its quota once and writes its one ledger row once.
 */
export interface Run extends HeldLease {
  /** This run's own id: its slot, its job and its data plane stream. A new run's is its simulation's id. */
  readonly runId: string;
  /** What it makes, final from admission on (a new run's seed was drawn there). */
  readonly spec: RunSpecification;
  /** The run starts; throws ClientAbortedError once it was released first (its client left: it is not run). */
  readonly begin: () => void;
  /**
   * The run ended with `outcome`: in Redis its slot is freed and its reservation becomes its charge
   * (settle.lua); resolves then. Its ledger row is written after, off the reply path, and its in-flight
   * entry goes once the row is committed. A replay, which has no row and took no quota, only frees its slot.
   */
  readonly settle: (outcome: SimulationOutcome) => Promise<void>;
  /**
   * The answer is over, or its client left: frees the slot if it is still held. A new run that never
   * began gets its request and interactions back, leaves no row, and can no longer begin.
   */
  readonly release: () => Promise<void>;
  /**
   * begin → enqueue → stream → settle: resolves with the first bytes (a small run's whole body, or a
   * stream once its first chunk is in). Settlement in Redis is awaited before the last bytes go, so a
   * client that read a whole body finds the run counted (the usage and the history merge a settled entry
   * whose row is not committed yet).
   */
  readonly execute: (options?: RunOptions) => Promise<Buffer | Readable>;
}

/** What admission took for a run: a slot under `runId`, and for a new run (`admitted`) its quota and in-flight entry. */
export interface RunTerms {
  readonly runId: string;
  readonly accountId: string;
  readonly period: MonthlyPeriod;
  readonly spec: RunSpecification;
  /** A new run's in-flight entry, as admission wrote it. */
  readonly admitted?: InflightEntry;
}

const toIso = (epochMs: number | null): string | null => (epochMs === null ? null : new Date(epochMs).toISOString());

/** What a run is charged: a request and every interaction when completed, the records made when cancelled. */
const chargeOf = (outcome: SimulationOutcome, numInteractions: number): readonly [number, number] => {
  switch (outcome.status) {
    case 'completed':
      return [1, numInteractions];
    case 'cancelled':
      // Cancelled before any bytes reached its client (records null): given back whole.
      return outcome.records === null ? [0, 0] : [1, outcome.records];
    default:
      return [0, 0];
  }
};

const settlementOf = (outcome: SimulationOutcome, charge: readonly [number, number]): Settlement => ({
  status: outcome.status,
  startedAt: outcome.status === 'timed_out' ? null : toIso(outcome.startedAt),
  finishedAt: new Date(outcome.finishedAt).toISOString(),
  computeMs: outcome.status === 'completed' ? outcome.computeMs : null,
  chargedInteractions: charge[0] === 1 ? charge[1] : null,
});

/** The run of an admission: a new run's (`terms.admitted`), or a replay's, which holds a slot and nothing else. */
export const createRun = (deps: RunDependencies, terms: RunTerms): Run => {
  const { runId, spec, admitted } = terms;
  const keys = limitKeys(deps.redisPrefix, terms.accountId, terms.period.key);
  const ttlSeconds = periodTtlSeconds(terms.period, Date.now());
  let slotHeld = true;
  let begun = false;
  let abandoned = false;
  // The entry as Redis should hold it now; undefined once the row is committed (or there is none).
  let entry: InflightEntry | undefined = admitted;
  let settling: Promise<void> | undefined;
  let releasing: Promise<void> | undefined;

  const freeSlot = async (): Promise<void> => {
    if (slotHeld) {
      slotHeld = false;
      await deps.redis.zrem(keys.slots, runId);
    }
  };

  // The row's write, once Redis has settled the run: off the reply path (docs/architecture.md, "The
  // ledger row after the answer"). Until it is committed the settled entry stands for it: the usage and
  // the history merge it, the keeper puts it back if Redis loses it, the stale-run sweeper writes the row
  // if this process dies first. Then the keeper drops the entry with its next batch.
  const writeRow = (settled: InflightEntry, settlement: Settlement): Promise<void> =>
    deps.ledger.write({ ...settled.run, ...settlement, createdAt: isoMicros(settled.admittedUs) }).then(
      () => {
        entry = undefined;
        deps.leases.forget({ quota: keys.quota, inflight: keys.inflight, runId });
      },
      (error: unknown) => {
        // The settled entry keeps the row: the stale-run sweeper writes it once PostgreSQL is back.
        deps.logger.error({ simulation_id: runId, error: describeError(error) }, 'could not write a settled run; the stale-run sweeper will');
      },
    );

  // Settles the entry in Redis, which is what the answer waits for: the quota charged, the slot freed,
  // the entry `settled` with the row it leads to (none for a run that never began). The row is written
  // after. Only when Redis could not settle it is the row awaited: it is then the one record of what the
  // run cost (the sweeper settles the entry by it).
  const settleEntry = async (outcome: SimulationOutcome | undefined): Promise<void> => {
    if (entry === undefined) {
      return;
    }
    const charge = outcome === undefined ? ([0, 0] as const) : chargeOf(outcome, spec.numInteractions);
    const settlement = outcome === undefined ? null : settlementOf(outcome, charge);
    const settled: InflightEntry = { ...entry, state: 'settled', charged: { requests: charge[0], interactions: charge[1] }, settlement };
    entry = settled;
    slotHeld = false;
    try {
      await deps.limitScripts.settle(keys, { runId, requests: charge[0], interactions: charge[1], entry: encodeInflightEntry(settled), ttlS: ttlSeconds });
    } catch (error) {
      deps.logger.warn({ simulation_id: runId, error: describeError(error) }, 'could not settle a run in Redis; the stale-run sweeper will');
      if (settlement !== null) {
        await writeRow(settled, settlement);
      }
      return;
    }
    if (settlement === null) {
      entry = undefined;
      deps.leases.forget({ quota: keys.quota, inflight: keys.inflight, runId });
      return;
    }
    void writeRow(settled, settlement);
  };

  const begin = (): void => {
    if (abandoned) {
      throw new ClientAbortedError();
    }
    begun = true;
  };

  const settle = (outcome: SimulationOutcome): Promise<void> => {
    settling ??= admitted === undefined ? freeSlot() : settleEntry(outcome);
    return settling;
  };

  const release = (): Promise<void> => {
    if (releasing !== undefined) {
      return releasing;
    }
    if (admitted !== undefined && !begun && settling === undefined) {
      // Never began, and from now on it cannot: the quota goes back with the slot, and no row is written.
      abandoned = true;
      settling = settleEntry(undefined);
      releasing = settling;
    } else {
      releasing = freeSlot();
    }
    return releasing;
  };

  const reassertion = (): Reassertion | undefined => {
    if (entry !== undefined && Date.now() > entry.leaseUntilMs + KEEP_PAST_LEASE_MS) {
      // Past its lease, a run this process could not settle or record is the stale-run sweeper's: never
      // put back an entry it may have finished (its row written, its entry dropped).
      entry = undefined;
    }
    // Put back until the row is committed: a run in flight with its reservation, a settled one with its
    // charge (its entry is the only record of it until then: seedLimits.lua counts it by its charge).
    if (entry === undefined) {
      return undefined;
    }
    const current = entry;
    return {
      quota: keys.quota,
      inflight: keys.inflight,
      runId,
      entry: () => encodeInflightEntry(current),
      counts: current.state === 'run' ? [1, current.run.numInteractions] : [current.charged?.requests ?? 0, current.charged?.interactions ?? 0],
      ttlSeconds,
    };
  };

  const execute = async (options: RunOptions = {}): Promise<Buffer | Readable> => {
    try {
      deps.simulations.assertAvailable();
    } catch (error) {
      await release();
      throw error;
    }
    // The deadline covers everything after admission: queueing and the run.
    const deadline = Date.now() + deps.config.simulationTimeoutMs;
    // Its client left before it began: it is not run (release gave back what admission took).
    begin();
    return executeRun(deps, { ...spec, runId, deadline }, options, async (ran) => {
      if (ran.status === 'rejected') {
        await settle({ status: 'failed', startedAt: null, finishedAt: Date.now() }).catch((error: unknown) =>
          deps.logger.error({ simulation_id: runId, error: describeError(error) }, 'could not settle a simulation'),
        );
        return;
      }
      await settle(ran.value);
    });
  };

  return { runId, spec, begin, settle, release, reassertion, execute };
};
