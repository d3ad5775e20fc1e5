import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { findModelVersion } from '../db/queries/models.ts';
import { PRESET_NAMES } from '../engine/presetTypes.ts';
import { scenarioSchema } from '../engine/scenarioSchema.ts';
import { parseTimestamp } from '../engine/parseTimestamp.ts';
import type { ModelSpecification } from '../runs/runSpecification.ts';
import type { ModelDefinition } from '../models/index.ts';
import type { StreamInput } from './StreamInput.ts';

/** A stream's `request` as the row keeps it and the Stream echoes it (seed drawn, defaults filled). */
const storedStreamRequestSchema = z.object({
  // The canonical preset, or the model's name for a model stream.
  preset: z.string(),
  // The model version a model stream was fixed to at creation; null (or absent) for a preset stream.
  model: z.object({ name: z.string(), version: z.number(), digest: z.string() }).nullable().optional(),
  profile: z.string(),
  seed: z.number(),
  num_interactions: z.number(),
  engine_version: z.string(),
  scenario: scenarioSchema.nullable(),
  population: z.number(),
  disorder: z.object({ late_share: z.number(), max_delay_s: z.number(), duplicate_share: z.number() }),
});

interface StreamRowInputs {
  readonly account_id: string;
  readonly request: unknown;
  readonly speed: number;
  /** ISO 8601. */
  readonly start_time: string;
}

/**
 * The engine's input of a stream row: its request, speed and start_time. A model stream's version is read
 * by (account, name, version), deleted or not (a deleted model's versions stay readable, as for replays),
 * so the row alone makes the stream again on any process after any loss (docs/streams.md), whatever became
 * of the model since; the version read must be the digest the stream was created with.
 */
export const loadStreamInput = async (connection: CommonQueryMethods, row: StreamRowInputs): Promise<StreamInput> => {
  const request = storedStreamRequestSchema.parse(row.request);
  const startTime = parseTimestamp(row.start_time);
  if (startTime === undefined) throw new RangeError(`start_time is not an instant: ${row.start_time}`);
  let model: ModelSpecification | undefined;
  if (request.model !== null && request.model !== undefined) {
    const { name, version, digest } = request.model;
    const stored = await findModelVersion(connection, { accountId: row.account_id, name, version, deleted: true });
    if (stored === null || stored.digest !== digest) throw new RangeError(`the stream's model ${name}@${version} (${digest}) is not stored`);
    // Stored only after checking; compiledModelOf checks it again against its digest before it runs.
    model = { name, version, digest, definition: stored.definition as unknown as ModelDefinition };
  } else if (!(PRESET_NAMES as readonly string[]).includes(request.preset)) {
    throw new RangeError(`the stream's preset is unknown: ${request.preset}`);
  }
  return {
    preset: request.preset,
    ...(model === undefined ? {} : { model }),
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
