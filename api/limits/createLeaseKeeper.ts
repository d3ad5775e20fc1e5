import { raceTimeout } from '../../shared/async/raceTimeout.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import type { Logger } from '../../shared/logger.ts';
import type { RedisClient } from '../../shared/redis/createRedis.ts';
import type { LimitScripts } from './createLimitScripts.ts';
import { limitsEpochKey } from './limitKeys.ts';
import { KEEPER_INTERVAL_MS } from './limitPolicy.ts';


/** What a lease puts back when Redis lost its in-flight entry (reassert.lua). */
export interface Reassertion {
  readonly quota: string;
  readonly inflight: string;
  /** The run's id, the in-flight entry's field. */
  readonly runId: string;
  /** The entry as admit.lua wrote it, made only when it has to be put back. */
  readonly entry: () => string;
  /** What the entry counts in the quota: requests and interactions. */
  readonly counts: readonly [number, number];
  /** The in-flight hash's ttl, s. */
  readonly ttlSeconds: number;
}

/** A run as the keeper sees it (api/runs/createRun.ts). */
export interface HeldLease {
  /** While Redis may have lost the run's entry: what puts it back, or undefined once nothing needs it. */
  readonly reassertion: () => Reassertion | undefined;
}

/** A settled run whose row is committed: its in-flight entry can go. */
interface Forgettable {
  readonly quota: string;
  readonly inflight: string;
  /** The run's id, the in-flight entry's field. */
  readonly runId: string;
}

export interface LeaseKeeper {
  /** Keeps `lease`'s in-flight entry in Redis until it no longer needs one (its row is written). */
  readonly hold: (lease: HeldLease) => void;
  /** Drops a settled run's entry with the next batch (forget.lua), off the request's path. */
  readonly forget: (run: Forgettable) => void;
  /**
   * Drops the entries waiting to go and puts back every held run's entry that Redis lost; resolves when
   * done. The timer calls it every interval; tests call it to see the state it leaves.
   */
  readonly flush: () => Promise<void>;
  /** Stops the timer after a last flush. */
  readonly stop: () => Promise<void>;
}

/**
 * The process's keeper of its runs' in-flight entries (one per process, made by api/createServices.ts).
 * A run between admission and its ledger row exists only in Redis and in the memory of the API process
 * that waits for it; when Redis loses its data, the process puts the entries back (reassert.lua) within
 * one interval, before any quota is rebuilt from them (seedLimits.lua waits four intervals from the
 * loss, which the limits epoch key dates). It also drops the entries of settled runs whose rows are
 * committed, in batches, so a run costs no Redis round trip for it. Per interval, per account and period,
 * however many runs: one forget.lua call and one HMGET of the held runs' ids (their entries are sent
 * again only when Redis lost them); and one SET NX of the epoch.
 */
export const createLeaseKeeper = (
  redis: RedisClient,
  scripts: LimitScripts,
  options: { readonly prefix: string; readonly logger: Logger; readonly intervalMs?: number },
): LeaseKeeper => {
  const { logger } = options;
  const epochKey = limitsEpochKey(options.prefix);
  const held = new Set<HeldLease>();
  let forgetting = new Map<string, { inflight: string; ids: string[] }>();
  let running: Promise<void> | undefined;

  const forgetAll = async (): Promise<void> => {
    const batches = forgetting;
    forgetting = new Map();
    await Promise.all(
      [...batches].map(([quota, { inflight, ids }]) =>
        scripts.forget({ quota, inflight }, { runIds: ids }).catch((error: unknown) => {
          // Left settled: a rebuild or the stale-run sweeper drops them (their rows are committed).
          logger.debug({ error: describeError(error) }, 'could not drop settled runs');
        }),
      ),
    );
  };

  const pass = (): Promise<void> => {
    running ??= (async () => {
      await forgetAll();
      // Missing only when Redis lost its data: from now on, a quota rebuild waits for every process's runs.
      await redis.set(epochKey, Date.now(), 'NX');
      const groups = new Map<string, Reassertion[]>();
      for (const lease of held) {
        const reassertion = lease.reassertion();
        if (reassertion === undefined) {
          held.delete(lease);
          continue;
        }
        const group = groups.get(reassertion.quota);
        if (group === undefined) {
          groups.set(reassertion.quota, [reassertion]);
        } else {
          group.push(reassertion);
        }
      }
      await Promise.all(
        [...groups.values()].map(async (group) => {
          const [first] = group as [Reassertion, ...Reassertion[]];
          // Asked by id first (a few bytes each): only entries Redis lost are sent again.
          const present = await redis.hmget(first.inflight, ...group.map((each) => each.runId));
          const lost = group.filter((_each, index) => present[index] === null);
          if (lost.length === 0) {
            return;
          }
          const runs = lost.map((each) => ({ runId: each.runId, entry: each.entry(), requests: each.counts[0], interactions: each.counts[1] }));
          const put = await scripts.reassert(first, { ttlS: first.ttlSeconds, runs });
          if (put > 0) {
            logger.warn({ runs: put }, 'Redis had lost in-flight runs; put them back');
          }
        }),
      );
    })()
      .catch((error: unknown) => {
        // Redis is out: the next interval tries again.
        logger.debug({ error: describeError(error) }, 'could not reassert in-flight runs');
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  // A pass waiting for the one in flight: flush() must see the state after every forget it asked for.
  const flush = async (): Promise<void> => {
    await running;
    await pass();
  };

  void pass();
  const timer = setInterval(() => void pass(), options.intervalMs ?? KEEPER_INTERVAL_MS);
  // Bookkeeping, not work: it never keeps a stopping process alive.
  timer.unref();

  return {
    hold: (lease) => {
      held.add(lease);
    },
    forget: (run) => {
      const batch = forgetting.get(run.quota);
      if (batch === undefined) {
        forgetting.set(run.quota, { inflight: run.inflight, ids: [run.runId] });
      } else {
        batch.ids.push(run.runId);
      }
    },
    flush,
    stop: async () => {
      clearInterval(timer);
      // Bounded: a Redis that does not answer must not hold a stopping process (what is left, the
      // stale-run sweeper finishes).
      await raceTimeout(flush(), 2000).catch(() => {});
    },
  };
};
