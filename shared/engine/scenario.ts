import { parseTimestamp } from './parseTimestamp.ts';
import type { PresetName } from './presetName.ts';

/**
 * One event of an engine-3 scenario, with the wire's names (DECISIONS "Engine 3"): the request's
 * `scenario.events[i]` after validation, with `intensity` defaulted to 1. The same object travels in the
 * job, the ledger (`simulations.scenario`) and the result's echo, so no layer renames it.
 */
export interface ScenarioEvent {
  /** One of the preset's scenario event types (SCENARIO_EVENTS). */
  readonly type: string;
  /** The targeted sequence_id (>= 1), or every sequence. */
  readonly sequence: number | 'all';
  /** 1-based position within the sequence of the event's first record; exactly one of at_step and at_time. */
  readonly at_step?: number | undefined;
  /**
   * Engine 4 on: ISO 8601 UTC instant (canonical); the event starts at the first record of each targeted
   * sequence at or after it (DECISIONS "Event time").
   */
  readonly at_time?: string | undefined;
  /** Steps the event lasts, 1..1000. */
  readonly duration: number;
  /** 0 < intensity <= 3. */
  readonly intensity: number;
}

export interface Scenario {
  /** 1..16 events; where two overlap, a record's scenario_event is the one listed first. */
  readonly events: readonly ScenarioEvent[];
}

/** A catalog entry of a preset's `scenario_events`. */
export interface ScenarioEventType {
  readonly type: string;
  readonly description: string;
  /** The measurable effect inside the event's window against the same run without it. */
  readonly effect: string;
}

export const SCENARIO_LIMITS = {
  minEvents: 1,
  maxEvents: 16,
  minDuration: 1,
  maxDuration: 1000,
  maxIntensity: 3,
  defaultIntensity: 1,
} as const;

/** The engine major from which scenarios and the `scenario_event` field exist. */
export const SCENARIO_ENGINE_MAJOR = 3;

/**
 * The event types each preset's engine-3 model implements, in catalog order. Request validation and the
 * catalog's `scenario_events` (with each type's description and effect, from the model) derive from it.
 */
export const SCENARIO_EVENT_TYPES: Readonly<Record<PresetName, readonly string[]>> = {
  education: ['fatigue', 'difficulty_spike', 'mastery_jump'],
  finance: ['market_crash', 'volatility_regime', 'rally'],
  healthcare: ['sepsis_onset', 'missed_medication', 'hypoxia'],
  mobile_app: ['outage', 'promotion', 'churn_wave'],
};

const EVENT_KEYS = new Set(['type', 'sequence', 'at_step', 'at_time', 'duration', 'intensity']);

/**
 * The engine's own guard on a scenario (callers validate requests first, with every issue named): throws
 * a RangeError naming the first problem, so a bad job can never produce silently wrong data.
 */
export function checkScenario(scenario: Scenario, types: readonly string[], timed = false): void {
  const events = scenario.events;
  if (events.length < SCENARIO_LIMITS.minEvents || events.length > SCENARIO_LIMITS.maxEvents) {
    throw new RangeError(`scenario.events must hold ${SCENARIO_LIMITS.minEvents} to ${SCENARIO_LIMITS.maxEvents} events`);
  }
  events.forEach((event, i) => {
    const at = `scenario.events[${i}]`;
    for (const key of Object.keys(event)) if (!EVENT_KEYS.has(key)) throw new RangeError(`${at}: unknown field ${key}`);
    if (!types.includes(event.type)) throw new RangeError(`${at}.type: not one of ${types.join(', ')}`);
    if (event.sequence !== 'all' && !(Number.isSafeInteger(event.sequence) && event.sequence >= 1)) {
      throw new RangeError(`${at}.sequence: an integer >= 1 or "all"`);
    }
    if ((event.at_step === undefined) === (event.at_time === undefined)) throw new RangeError(`${at}: exactly one of at_step and at_time`);
    if (event.at_step !== undefined && !(Number.isSafeInteger(event.at_step) && event.at_step >= 1)) throw new RangeError(`${at}.at_step: an integer >= 1`);
    if (event.at_time !== undefined) {
      if (!timed) throw new RangeError(`${at}.at_time: needs engine 4 or later (records with event_time)`);
      if (parseTimestamp(event.at_time) === undefined) throw new RangeError(`${at}.at_time: an ISO 8601 UTC instant`);
    }
    if (!(Number.isInteger(event.duration) && event.duration >= SCENARIO_LIMITS.minDuration && event.duration <= SCENARIO_LIMITS.maxDuration)) {
      throw new RangeError(`${at}.duration: an integer ${SCENARIO_LIMITS.minDuration}..${SCENARIO_LIMITS.maxDuration}`);
    }
    if (!(typeof event.intensity === 'number' && event.intensity > 0 && event.intensity <= SCENARIO_LIMITS.maxIntensity)) {
      throw new RangeError(`${at}.intensity: a number, 0 < x <= ${SCENARIO_LIMITS.maxIntensity}`);
    }
  });
}
