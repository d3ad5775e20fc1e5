import type { PlanRow } from '../../shared/db/queries/plans.ts';
import type { MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';

/** What admission took for a request, and what has to be handed back when it ends. */
export interface SimulationAdmission {
  readonly simulationId: string;
  readonly accountId: string;
  readonly plan: PlanRow;
  readonly period: MonthlyPeriod;
  readonly numInteractions: number;
  /** Set once the ledger row exists. */
  recorded: boolean;
  /** Set by settlement once the ledger row left `queued` and the quota and slot were dealt with. */
  settled: boolean;
}
