import { parseTimestamp } from '../../shared/engine/parseTimestamp.ts';
import { DEFAULT_RUN_TIMING, EVENT_TIME_ENGINE_MAJOR, type RunTimingSpec, START_TIME_YEARS } from '../../shared/engine/RunTimingSpec.ts';
import type { Scenario } from '../../shared/engine/scenario.ts';
import { isoTimestamp } from '../../shared/engine/writeTimestamp.ts';

/** What a request names of engine 4's clock: start_time, order and population, each optional. */
export interface RunTimingRequest {
  readonly start_time?: string | undefined;
  readonly order?: RunTimingSpec['order'] | undefined;
  readonly population?: number | undefined;
}

/** One problem with a request's timing, at its path (the body's field, or a scenario event's at_time). */
export interface RunTimingIssue {
  readonly path: (string | number)[];
  readonly message: string;
}

/**
 * Engine 4's start_time, order and population, defaults filled and start_time made canonical; undefined on
 * an engine before 4, where naming any of them (or a scenario event's at_time) is an issue at its path.
 * Shared by preset and model requests, so both are checked the same way (docs/api.md#event-time).
 */
export const resolveRunTiming = (
  body: RunTimingRequest,
  scenario: Scenario | undefined,
  serviceVersion: string,
): { readonly timing: RunTimingSpec | undefined; readonly issues: RunTimingIssue[] } => {
  const issues: RunTimingIssue[] = [];
  if (Number(serviceVersion.split('.')[0]) < EVENT_TIME_ENGINE_MAJOR) {
    scenario?.events?.forEach((event, index) => {
      if (event.at_time !== undefined) {
        issues.push({
          path: ['scenario', 'events', index, 'at_time'],
          message: `at_time needs engine ${EVENT_TIME_ENGINE_MAJOR} or later (records with event_time); this request runs engine ${serviceVersion}.`,
        });
      }
    });
    for (const field of ['start_time', 'order', 'population'] as const) {
      if (body[field] !== undefined) {
        issues.push({ path: [field], message: `${field} needs engine ${EVENT_TIME_ENGINE_MAJOR} or later; this request runs engine ${serviceVersion}.` });
      }
    }
    return { timing: undefined, issues };
  }
  let startTime = DEFAULT_RUN_TIMING.start_time;
  if (body.start_time !== undefined) {
    const ms = parseTimestamp(body.start_time);
    const year = ms === undefined ? Number.NaN : Number(isoTimestamp(ms).slice(0, 4));
    if (ms === undefined || !(year >= START_TIME_YEARS.min && year <= START_TIME_YEARS.max)) {
      issues.push({
        path: ['start_time'],
        message: `Expected an ISO 8601 UTC instant like 2026-01-01T00:00:00.000Z (Z required), in the years ${START_TIME_YEARS.min}–${START_TIME_YEARS.max}.`,
      });
    } else {
      startTime = isoTimestamp(ms);
    }
  }
  return { timing: { start_time: startTime, order: body.order ?? DEFAULT_RUN_TIMING.order, population: body.population ?? DEFAULT_RUN_TIMING.population }, issues };
};

/** The scenario with each at_time made canonical (milliseconds, `Z`), as records print instants. */
export const canonicalScenario = (scenario: Scenario | undefined): Scenario | undefined =>
  scenario?.events === undefined ?
    scenario
  : {
      ...scenario,
      events: scenario.events.map((event) => (event.at_time === undefined ? event : { ...event, at_time: isoTimestamp(parseTimestamp(event.at_time) ?? 0) })),
    };
