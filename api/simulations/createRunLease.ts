import type { InsertSimulationInput } from '../../shared/db/queries/simulations.ts';
import { ClientAbortedError } from '../../shared/errors/errors.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import type { PlanRow } from '../../shared/db/queries/plans.ts';
import type { MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import type { Services } from '../Services.ts';
import type { SimulationOutcome } from './createSimulationClient.ts';
import { releaseSimulation } from './releaseSimulation.ts';

/** What admission took for a request: a slot under `simulationId`, and for a new run its quota. */
export interface AdmissionTerms {
  readonly simulationId: string;
  readonly accountId: string;
  readonly plan: PlanRow;
  readonly period: MonthlyPeriod;
  readonly numInteractions: number;
}

/**
 * The one owner of an admitted run's slot and ledger fate, from admission to whatever ends the run
 * (completion, failure, deadline, a client that left, shutdown). Each method takes effect at most once;
 * a later call returns the first call's promise. Whatever the order of calls, the slot is freed exactly
 * once and the quota handed back at most once: by the lease while the ledger has no row, by settlement
 * (or the stale-run sweeper, api/simulations/sweepStaleSimulations.ts) once it has one.
 */
export interface RunLease {
  /**
   * Writes the run's ledger row (status `queued`): from then on the row owns the quota's fate. Rejects
   * with ClientAbortedError once the lease was released unrecorded (the client left before the run
   * began: it is not run), and with the write's error when the row could not be written.
   */
  readonly record: (row: InsertSimulationInput) => Promise<void>;
  /**
   * The run ended with `outcome`: its row leaves `queued` (a new run) and the limits get back what the
   * run does not pay for; the slot is freed alongside. A replay, which has no row and took no quota, only
   * frees its slot. Only the settlement that moved the row gives anything back, so racing the stale-run
   * sweeper never gives back twice.
   */
  readonly settle: (outcome: SimulationOutcome) => Promise<void>;
  /**
   * The answer is over, or its client left: frees the slot if it is still held. A new run the ledger
   * never recorded also gets its request and interactions back, and can no longer be recorded.
   */
  readonly release: () => Promise<void>;
}

const toIso = (epochMs: number | null): string | null => (epochMs === null ? null : new Date(epochMs).toISOString());

/**
 * The lease of an admission: `charges` for a new run (quota and a ledger row), not for a replay (a slot
 * and nothing else).
 */
export const createRunLease = (services: Services, terms: AdmissionTerms, charges: boolean): RunLease => {
  const { simulationId } = terms;
  let slotHeld = true;
  // Whose the quota's fate is: the lease's until the row exists, then the row's (settlement or the sweeper).
  let quota: 'lease' | 'ledger' | 'none' = charges ? 'lease' : 'none';
  let recording: Promise<void> | undefined;
  let settling: Promise<void> | undefined;
  let releasing: Promise<void> | undefined;

  // Frees the slot if still held and, when asked, hands the quota back; one script call, or none.
  const handBack = async (giveBack: false | { readonly charged?: number }): Promise<void> => {
    const freeSlot = slotHeld;
    slotHeld = false;
    if (!freeSlot && giveBack === false) {
      return;
    }
    await releaseSimulation(services, {
      ...terms,
      freeSlot,
      giveBack: giveBack !== false,
      ...(giveBack !== false && giveBack.charged !== undefined ? { charged: giveBack.charged } : {}),
    });
  };

  const record = (row: InsertSimulationInput): Promise<void> => {
    recording ??= (async () => {
      if (quota !== 'lease') {
        throw new ClientAbortedError();
      }
      await services.ledger.insert(row);
      quota = 'ledger';
    })();
    return recording;
  };

  const settleRow = async (outcome: SimulationOutcome): Promise<void> => {
    const finishing = services.ledger.finish({
      id: simulationId,
      status: outcome.status,
      startedAt: outcome.status === 'timed_out' ? null : toIso(outcome.startedAt),
      finishedAt: new Date(outcome.finishedAt).toISOString(),
      computeMs: outcome.status === 'completed' ? outcome.computeMs : null,
      chargedInteractions: outcome.status === 'completed' ? terms.numInteractions : outcome.status === 'cancelled' ? outcome.records : null,
    });
    if (outcome.status === 'completed') {
      // A completed run keeps its quota whoever settles it, so its slot is freed alongside the ledger write.
      const [settled] = await Promise.allSettled([finishing, handBack(false)]);
      if (settled.status === 'rejected') {
        services.logger.error({ simulation_id: simulationId, error: describeError(settled.reason) }, 'could not settle a completed simulation; the stale-run sweeper will');
      }
      return;
    }
    let moved: boolean;
    try {
      moved = await finishing;
    } catch (error) {
      // The row stays `queued`: the sweeper gives its quota back. The slot is this run's to free now.
      await handBack(false);
      throw error;
    }
    const charged = outcome.status === 'cancelled' ? outcome.records : null;
    await handBack(moved ? (charged === null ? {} : { charged }) : false);
  };

  const settle = (outcome: SimulationOutcome): Promise<void> => {
    settling ??= quota === 'none' ? handBack(false) : (async () => {
      // Settling follows the row's write; a row that was never written has nothing to settle.
      await recording;
      await settleRow(outcome);
    })();
    return settling;
  };

  const release = (): Promise<void> => {
    if (releasing === undefined && recording === undefined && quota === 'lease') {
      // Never recorded, and from now on it cannot be: the quota goes back with the slot.
      quota = 'none';
      releasing = handBack({});
    }
    releasing ??= (async () => {
      // A write in flight decides whose the quota is: wait for it (its failure leaves it the lease's).
      await recording?.catch(() => {});
      if (quota === 'lease') {
        quota = 'none';
        await handBack({});
      } else {
        await handBack(false);
      }
    })();
    return releasing;
  };

  return { record, settle, release };
};
