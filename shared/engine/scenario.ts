import { parseTimestamp } from './parseTimestamp.ts';
import type { PresetName } from './presetName.ts';

/**
 * One event of an engine-3 scenario, with the wire's names (docs/scenarios.md#a-scenario): the request's
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
   * sequence at or after it (docs/api.md#event-time).
   */
  readonly at_time?: string | undefined;
  /** Steps the event lasts, 1..1000. */
  readonly duration: number;
  /** 0 < intensity <= 3. */
  readonly intensity: number;
}

/**
 * Events the engine places itself, from the seed (docs/scenarios.md#random-events-at-a-chosen-rate): per
 * sequence, `per_sequence` events in expectation, each of a type, duration and intensity drawn within the
 * given ranges, never overlapping and never closer than `min_gap` steps to another event or to the
 * sequence's first step. Where they fall is placeRandomEvents.ts; docs/scenarios.md explains it.
 */
export interface RandomEvents {
  /** Types drawn from (uniformly), each one of the preset's. */
  readonly types: readonly string[];
  /** 0..8: the expected number of events in a sequence that runs its whole episode. */
  readonly per_sequence: number;
  /** [min, max] steps, integers 1..1000, min <= max (two numbers: the wire's array). */
  readonly duration: readonly number[];
  /** [min, max], 0 < min <= max <= 3. */
  readonly intensity: readonly number[];
  /** Clean steps at least between two events and before the first one; 10 when absent. */
  readonly min_gap: number;
}

export interface Scenario {
  /** 1..16 events; where two overlap, a record's scenario_event is the one listed first. */
  readonly events?: readonly ScenarioEvent[] | undefined;
  /** Events placed by the engine; they rank after every listed event. */
  readonly random?: RandomEvents | undefined;
}

/** An event as it happened in one sequence: what the result's `scenario.placed` lists. */
export interface PlacedEvent {
  readonly type: string;
  readonly sequence: number;
  readonly at_step: number;
  readonly duration: number;
  readonly intensity: number;
}

/**
 * What a run made of its scenario: `placed`, every event that labelled at least one record, in the order
 * of their first records; `unplaced`, every listed event that labelled none (its sequence ended before
 * at_step, or the run did).
 */
export interface ScenarioOutcome {
  readonly placed: readonly PlacedEvent[];
  readonly unplaced: readonly ScenarioEvent[];
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
  maxPerSequence: 8,
  minGap: 1,
  maxGap: 1000,
  defaultGap: 10,
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
const RANDOM_KEYS = new Set(['types', 'per_sequence', 'duration', 'intensity', 'min_gap']);

/**
 * Why random events of these bounds cannot always fit an episode of `horizon` steps, or undefined: the
 * most events a sequence can get (per_sequence rounded up), each of the longest duration and its gap, must
 * fit, so the engine never has to drop one for lack of room.
 */
export function randomEventsRoom(random: RandomEvents, horizon: number): string | undefined {
  const longest = random.duration[1] ?? 0;
  const need = Math.ceil(random.per_sequence) * (longest + random.min_gap);
  return need > horizon
    ? `${Math.ceil(random.per_sequence)} events of up to ${longest} steps, each after a gap of ${random.min_gap}, need ${need} steps; a sequence of this model lasts at most ${horizon}.`
    : undefined;
}

const isRange = (range: readonly number[]): boolean => range.length === 2 && typeof range[0] === 'number' && typeof range[1] === 'number' && range[0] <= range[1];

function checkRandom(random: RandomEvents, types: readonly string[], horizon: number): void {
  const at = 'scenario.random';
  for (const key of Object.keys(random)) if (!RANDOM_KEYS.has(key)) throw new RangeError(`${at}: unknown field ${key}`);
  if (random.types.length === 0 || random.types.some((type) => !types.includes(type))) throw new RangeError(`${at}.types: one or more of ${types.join(', ')}`);
  if (!(random.per_sequence >= 0 && random.per_sequence <= SCENARIO_LIMITS.maxPerSequence)) throw new RangeError(`${at}.per_sequence: 0..${SCENARIO_LIMITS.maxPerSequence}`);
  const [dMin = 0, dMax = 0] = random.duration;
  if (!isRange(random.duration) || !Number.isInteger(dMin) || !Number.isInteger(dMax) || dMin < SCENARIO_LIMITS.minDuration || dMax > SCENARIO_LIMITS.maxDuration) {
    throw new RangeError(`${at}.duration: [min, max] integers ${SCENARIO_LIMITS.minDuration}..${SCENARIO_LIMITS.maxDuration}`);
  }
  const [iMin = 0, iMax = 0] = random.intensity;
  if (!isRange(random.intensity) || !(iMin > 0) || iMax > SCENARIO_LIMITS.maxIntensity) {
    throw new RangeError(`${at}.intensity: [min, max], 0 < min <= max <= ${SCENARIO_LIMITS.maxIntensity}`);
  }
  if (!(Number.isInteger(random.min_gap) && random.min_gap >= SCENARIO_LIMITS.minGap && random.min_gap <= SCENARIO_LIMITS.maxGap)) {
    throw new RangeError(`${at}.min_gap: an integer ${SCENARIO_LIMITS.minGap}..${SCENARIO_LIMITS.maxGap}`);
  }
  const room = randomEventsRoom(random, horizon);
  if (room !== undefined) throw new RangeError(`${at}: ${room}`);
}

/**
 * The engine's own guard on a scenario (callers validate requests first, with every issue named): throws
 * a RangeError naming the first problem, so a bad job can never produce silently wrong data.
 */
export function checkScenario(scenario: Scenario, types: readonly string[], horizon: number, timed = false): void {
  const events = scenario.events;
  if (events === undefined && scenario.random === undefined) throw new RangeError('scenario: events, random or both');
  if (scenario.random !== undefined) checkRandom(scenario.random, types, horizon);
  if (events === undefined) return;
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
