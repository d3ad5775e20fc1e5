import { z } from 'zod';
import { parseTimestamp } from './parseTimestamp.ts';
import { SCENARIO_LIMITS, type Scenario } from './scenario.ts';

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

/**
 * An engine-3 scenario on the wire (DECISIONS "Engine 3"): the request's `scenario`, the result's and
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
      .describe('1–16 events; where two overlap, a record carries the type of the one listed first.'),
  })
  .describe("An engine-3 scenario: events that change the simulated world where and when they say. Engine 3 and later only.");
