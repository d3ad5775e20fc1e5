import { z } from 'zod';
import { PRESET_NAMES } from '../engine/presetTypes.ts';
import { scenarioSchema } from '../engine/scenarioSchema.ts';
import { parseTimestamp } from '../engine/parseTimestamp.ts';
import type { StreamInput } from './StreamInput.ts';

/** A stream's `request` as the row keeps it and the Stream echoes it (seed drawn, defaults filled). */
const storedStreamRequestSchema = z.object({
  preset: z.enum(PRESET_NAMES),
  profile: z.string(),
  seed: z.number(),
  num_interactions: z.number(),
  engine_version: z.string(),
  scenario: scenarioSchema.nullable(),
  population: z.number(),
  disorder: z.object({ late_share: z.number(), max_delay_s: z.number(), duplicate_share: z.number() }),
});

/** The engine's input of a stream row: its request, speed and start_time (ISO 8601). */
export const streamInputOf = (row: { readonly request: unknown; readonly speed: number; readonly start_time: string }): StreamInput => {
  const request = storedStreamRequestSchema.parse(row.request);
  const startTime = parseTimestamp(row.start_time);
  if (startTime === undefined) throw new RangeError(`start_time is not an instant: ${row.start_time}`);
  return {
    preset: request.preset,
    profile: request.profile,
    seed: request.seed,
    numInteractions: request.num_interactions,
    serviceVersion: request.engine_version,
    scenario: request.scenario,
    startTime,
    population: request.population,
    speed: row.speed,
    disorder: request.disorder,
  };
};
