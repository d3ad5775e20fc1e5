import { z } from 'zod';
import { OUTPUT_FORMATS, type OutputFormat, resolvePreset } from '../../../shared/engine/index.ts';
import { scenarioSchema } from '../../../shared/engine/scenarioSchema.ts';
import { runTimingSchema } from '../../../shared/engine/runTimingSchema.ts';
import { internalError } from '../../../shared/errors/errors.ts';
import type { IdempotentRoute } from '../../idempotency/idempotent.ts';
import { holdReplayAdmission } from '../../limits/holdReplayAdmission.ts';
import type { AdmittedState } from '../../simulations/admitSimulationRequest.ts';
import type { RunSpecification } from '../../../shared/jobs/RunSpecification.ts';
import type { Services } from '../../Services.ts';
import { respondWithSimulation } from './respondWithSimulation.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { referenceOf } from '../../simulations/referenceOf.ts';

/** Set by the route once the run's inputs are final: what an idempotent replay needs. */
export type SimulationState = AdmittedState & { simulationRun?: RunSpecification & { readonly format: OutputFormat } };

// What is kept per key: the run's inputs and its format, never its records, so it does not grow with
// num_interactions. A record from before formats existed is JSON; one from before scenarios has none.
const recordedRunSchema = z.object({
  simulation_id: z.uuid(),
  preset: z.string(),
  profile: z.string(),
  seed: z.number().int(),
  num_interactions: z.number().int(),
  engine_version: z.string(),
  format: z.enum(OUTPUT_FORMATS).default('json'),
  scenario: scenarioSchema.nullable().default(null),
  timing: runTimingSchema.nullable().default(null),
  // A model run's version (its definition is read again, deleted or not); a record from before models has none.
  model: z.object({ name: z.string(), version: z.int().min(1), digest: z.string() }).nullable().default(null),
});

export const simulationIdempotency = (services: Services): IdempotentRoute<SimulationState> => ({
  record: (ctx) => {
    const run = ctx.state.simulationRun;
    return run === undefined
      ? undefined
      : {
          simulation_id: run.simulationId,
          preset: run.preset,
          profile: run.profile,
          seed: run.seed,
          num_interactions: run.numInteractions,
          engine_version: run.serviceVersion,
          format: run.format,
          scenario: run.scenario ?? null,
          timing: run.timing ?? null,
          model: referenceOf(run.model) ?? null,
        };
  },
  // The same run-and-respond path as the first answer, as a replay of the recorded run, in the recorded
  // format, under the recorded Simulation-Id. A replay is limited like a history replay
  // (docs/fair-use.md#replays): a rate entry and a slot while it streams, the account's current per-request
  // maximum, no monthly quota and no ledger row.
  replay: async (ctx, kept) => {
    const recorded = recordedRunSchema.safeParse(kept.response);
    if (!recorded.success) {
      throw internalError();
    }
    const run = recorded.data;
    const { model } = run;
    const stored = model === null ? undefined : await services.models.recorded(requirePrincipal(ctx.state).accountId, model.name, model.version);
    const preset = model === null ? resolvePreset(run.preset) : { name: model.name };
    if (preset === undefined || stored === null || (model !== null && stored?.spec.digest !== model.digest)) {
      throw internalError();
    }
    const request = {
      preset,
      model: stored?.spec,
      profile: run.profile,
      seed: run.seed,
      numInteractions: run.num_interactions,
      serviceVersion: run.engine_version,
      scenario: run.scenario ?? undefined,
      timing: run.timing ?? undefined,
      replayOf: { simulationId: run.simulation_id, serviceVersion: run.engine_version },
    };
    await holdReplayAdmission(ctx, services, request, async (admission) => {
      await respondWithSimulation(ctx, services, request, admission, run.format);
      ctx.status = kept.status;
    });
  },
});
