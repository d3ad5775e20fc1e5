import { z } from 'zod';
import { parseTimestamp } from './parseTimestamp.ts';
import { SCENARIO_LIMITS, type Scenario, type ScenarioOutcome } from './scenario.ts';

// Parsed keys come out in the order of these shapes whatever order they came in, and a ledger jsonb
// (which keeps keys in an order of its own) read back through it too: the echo prints them in this order.
const scenarioEventShape = z.strictObject({
  type: z.string().describe("One of the preset's `scenario_events` types (see GET /v1/presets/{preset})."),
  sequence: z
    .union([z.int().min(1), z.literal('all')], { error: 'Expected a sequence_id (an integer >= 1) or "all".' })
    .describe('The `sequence_id` the event targets (an integer >= 1), or `"all"` for every sequence.'),
  at_step: z
    .int()
    .min(1)
    .optional()
    .describe("The position within the sequence of the event's first record; 1 is the sequence's first record. Exactly one of `at_step` and `at_time`."),
  at_time: z
    .string()
    .optional()
    .describe(
      'Engine 4 on, instead of `at_step`: an ISO 8601 UTC instant (`Z` required); the event starts at the first record of each targeted sequence at or after it. Echoed with milliseconds.',
    ),
  duration: z.int().min(SCENARIO_LIMITS.minDuration).max(SCENARIO_LIMITS.maxDuration).describe('How many steps (records of the sequence) the event lasts, 1–1000.'),
  intensity: z
    .number()
    .gt(0)
    .max(SCENARIO_LIMITS.maxIntensity)
    .default(SCENARIO_LIMITS.defaultIntensity)
    .describe('How strong the event is, 0 < intensity <= 3; 1 when absent.'),
});

// Exactly one of at_step and at_time, and at_time an instant (made canonical by the request's schema:
// api/routes/simulations/schema.ts). A refinement, not a transform, so the documents keep the shape.
const scenarioEventSchema = scenarioEventShape.superRefine((event, context) => {
  if ((event.at_step === undefined) === (event.at_time === undefined)) {
    context.addIssue({ code: 'custom', path: ['at_step'], message: 'Give exactly one of at_step and at_time.' });
  } else if (event.at_time !== undefined && parseTimestamp(event.at_time) === undefined) {
    context.addIssue({ code: 'custom', path: ['at_time'], message: 'Expected an ISO 8601 UTC instant like 2026-01-05T21:00:00.000Z (Z required).' });
  }
});

// A [min, max] pair; min <= max is checked once for the object, with the pair's path.
const rangeOf = (item: z.ZodNumber, what: string) =>
  z
    .array(item)
    .length(2)
    .refine(([min = 0, max = 0]) => min <= max, { error: 'Expected [min, max] with min <= max.' })
    .describe(what);

const randomEventsSchema = z
  .strictObject({
    types: z.array(z.string()).min(1).max(16).describe("The types to draw from, uniformly: each one of the preset's `scenario_events` types."),
    per_sequence: z
      .number()
      .min(0)
      .max(SCENARIO_LIMITS.maxPerSequence)
      .describe('0–8: the expected number of events in a sequence that runs its whole episode (a fraction adds one event with that probability).'),
    duration: rangeOf(
      z.int().min(SCENARIO_LIMITS.minDuration).max(SCENARIO_LIMITS.maxDuration),
      'Each event lasts a whole number of steps drawn uniformly from [min, max], 1–1000.',
    ),
    intensity: rangeOf(
      z.number().gt(0).max(SCENARIO_LIMITS.maxIntensity),
      'Each event has an intensity drawn uniformly from [min, max] (to the hundredth), 0 < min <= max <= 3.',
    ),
    min_gap: z
      .int()
      .min(SCENARIO_LIMITS.minGap)
      .max(SCENARIO_LIMITS.maxGap)
      .default(SCENARIO_LIMITS.defaultGap)
      .describe("Clean steps at least between two events of a sequence and before its first; 10 when absent."),
  })
  .describe('Events the engine places from the seed, at a chosen rate; see docs/scenarios.md.');

/**
 * An engine-3 scenario on the wire (docs/api.md#scenarios): the request's `scenario`, the result's and
 * history Run's echo, the idempotency record, the ledger's `simulations.scenario` and the job's. Which
 * types a preset knows and which engines take a scenario are the request's checks (they need the preset
 * and the engine); this is the shape and the bounds, with `intensity` defaulted.
 */
export const scenarioSchema: z.ZodType<Scenario, unknown> = z
  .strictObject({
    events: z
      .array(scenarioEventSchema)
      .min(SCENARIO_LIMITS.minEvents)
      .max(SCENARIO_LIMITS.maxEvents)
      .optional()
      .describe('1–16 events; where two overlap, a record carries the type of the one listed first.'),
    random: randomEventsSchema.optional(),
  })
  .refine((scenario) => scenario.events !== undefined || scenario.random !== undefined, { error: 'A scenario holds `events`, `random` or both.', path: ['events'] })
  .describe("An engine-3 scenario: events that change the simulated world where and when they say. Engine 3 and later only.");

const placedEventSchema = z.strictObject({
  type: z.string(),
  sequence: z.int().min(1).describe('The `sequence_id` whose records the event labelled.'),
  at_step: z.int().min(1),
  duration: z.int().min(1),
  intensity: z.number(),
});

/** The result's echo: the scenario as validated, and what the run made of it (ScenarioOutcome). */
export const scenarioResultSchema = z
  .strictObject({
    events: z.array(scenarioEventSchema).optional(),
    random: randomEventsSchema.optional(),
    placed: z
      .array(placedEventSchema)
      .describe('Every event (listed or random) that labelled at least one record, in the order of their first records; one entry per sequence for an event on "all".'),
    unplaced: z.array(scenarioEventSchema).describe('Every listed event that labelled no record: its sequence ended before `at_step`, or the run did.'),
  })
  .describe("The request's scenario as validated, with what the run made of it.") satisfies z.ZodType<Scenario & ScenarioOutcome, unknown>;
