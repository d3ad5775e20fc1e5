import { z } from 'zod';
import { OUTPUT_FORMATS, type OutputFormat, resolvePreset } from '../../../shared/engine/index.ts';
import { runTimingSchema } from '../../../shared/engine/runTimingSchema.ts';
import { scenarioSchema } from '../../../shared/engine/scenarioSchema.ts';
import { internalError } from '../../../shared/errors/errors.ts';
import { modelReferenceSchema, runRecordSchema, type RunSpecification } from '../../../shared/runs/runSpecification.ts';
import type { KeptAnswer } from '../../idempotency/idempotent.ts';
import type { ModelStore } from '../../models/createModelStore.ts';

// What is kept per key: the run's record (shared/runs/runSpecification.ts) and its format, never its
// records, so it does not grow with num_interactions.
const keptRunSchema = runRecordSchema.extend({ format: z.enum(OUTPUT_FORMATS) });

/** What an idempotent POST /v1/simulations keeps of its first answer (keptRunOf.ts). */
export type KeptRun = z.infer<typeof keptRunSchema>;

// A record kept by the previous version, with the wire's names, is read until it expires (24 h after the
// last of them was kept). One from before formats existed is JSON; one from before scenarios, timing or
// models has none.
const previousKeptRunSchema = z
  .object({
    simulation_id: z.uuid(),
    preset: z.string(),
    profile: z.string(),
    seed: z.number().int(),
    num_interactions: z.number().int(),
    engine_version: z.string(),
    format: z.enum(OUTPUT_FORMATS).default('json'),
    scenario: scenarioSchema.nullable().default(null),
    timing: runTimingSchema.nullable().default(null),
    model: modelReferenceSchema.nullable().default(null),
  })
  .transform(({ simulation_id, num_interactions, engine_version, scenario, timing, model, ...run }): KeptRun => ({
    ...run,
    simulationId: simulation_id,
    numInteractions: num_interactions,
    serviceVersion: engine_version,
    ...(scenario === null ? {} : { scenario }),
    ...(timing === null ? {} : { timing }),
    ...(model === null ? {} : { model }),
  }));

const recordedRunSchema = z.union([keptRunSchema, previousKeptRunSchema]);

/**
 * The run a kept answer makes again, and its format: the recorded inputs under the recorded simulation id,
 * a model run's recorded version read again (deleted or not). Anything else is a fault of ours (500).
 */
export const keptRunSpecification = async (models: ModelStore, accountId: string, kept: KeptAnswer): Promise<{ readonly spec: RunSpecification; readonly format: OutputFormat }> => {
  const recorded = recordedRunSchema.safeParse(kept.response);
  if (!recorded.success) {
    throw internalError();
  }
  const { model, format, ...run } = recorded.data;
  if (model === undefined) {
    if (resolvePreset(run.preset) === undefined) {
      throw internalError();
    }
    return { spec: run, format };
  }
  const stored = await models.recorded(accountId, model.name, model.version);
  if (stored === null || stored.spec.digest !== model.digest) {
    throw internalError();
  }
  return { spec: { ...run, model: stored.spec }, format };
};
