import { POPULATION_LIMITS } from './createSimulation.ts';
import { DEFAULT_TIMING } from './eventTime/eventTimeModel.ts';
import { parseTimestamp } from './parseTimestamp.ts';
import type { RunInput, RunOrder } from './presetTypes.ts';
import { isoTimestamp } from './writeTimestamp.ts';

/**
 * Engine 4's run inputs with the wire's names (docs/api.md#event-time), defaults filled: what the result
 * and history Runs echo, and what travels in the job, the ledger (`simulations.timing`) and the
 * idempotency record, so no layer renames them. Absent for a run on an engine before 4.
 */
export interface RunTimingSpec {
  /** ISO 8601 UTC with milliseconds, canonical (as the records print instants). */
  readonly start_time: string;
  readonly order: RunOrder;
  readonly population: number;
}

/** The engine 4 major, from which records carry event_time and runs take start_time, order and population. */
export const EVENT_TIME_ENGINE_MAJOR = 4;
/** Years a start_time may name: records stay within the four-digit years for any run the plans allow. */
export const START_TIME_YEARS = { min: 1970, max: 2200 } as const;
export { POPULATION_LIMITS };

export const DEFAULT_RUN_TIMING: RunTimingSpec = {
  start_time: isoTimestamp(DEFAULT_TIMING.startTime),
  order: DEFAULT_TIMING.order,
  population: DEFAULT_TIMING.population,
};

/** The engine input's fields for a timing (none for an engine before 4). */
export function timingInput(timing: RunTimingSpec | undefined): Pick<RunInput, 'startTime' | 'order' | 'population'> {
  if (timing === undefined) return {};
  const startTime = parseTimestamp(timing.start_time);
  if (startTime === undefined) throw new RangeError(`start_time is not an ISO 8601 UTC instant: ${timing.start_time}`);
  return { startTime, order: timing.order, population: timing.population };
}
