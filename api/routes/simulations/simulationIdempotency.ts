import { z } from 'zod';
import { OUTPUT_FORMATS, type OutputFormat, resolvePreset } from '../../../shared/engine/index.ts';
import { scenarioSchema } from '../../../shared/engine/scenarioSchema.ts';
import { runTimingSchema } from '../../../shared/engine/runTimingSchema.ts';
import { internalError } from '../../../shared/errors/errors.ts';
import type { IdempotentRoute } from '../../idempotency/idempotent.ts';
import { admitReplayRun } from '../../runs/admitReplayRun.ts';
import { holdWhileAnswering } from './holdWhileAnswering.ts';
import { presentRateLimit } from './presentRateLimit.ts';
import { watchClient } from './watchClient.ts';
import type { AdmittedState } from './admitSimulationRequest.ts';
import { modelReferenceSchema, recordOf, runRecordSchema, type RunSpecification } from '../../../shared/runs/runSpecification.ts';
import type { Services } from '../../Services.ts';
import { presentSimulation } from './presentSimulation.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';

/** Set by the route once the run's inputs are final: what an idempotent replay needs. */
export type SimulationState = AdmittedState & { simulationRun?: RunSpecification & { readonly format: OutputFormat } };

// What is kept per key: the run's record (shared/runs/runSpecification.ts) and its format, never its
// records, so it does not grow with num_interactions.
const keptRunSchema = runRecordSchema.extend({ format: z.enum(OUTPUT_FORMATS) });

type KeptRun = z.infer<typeof keptRunSchema>;

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

export const simulationIdempotency = (services: Services): IdempotentRoute<SimulationState> => ({
  record: (ctx) => {
    const run = ctx.state.simulationRun;
    return run === undefined ? undefined : ({ ...recordOf(run), format: run.format } satisfies KeptRun);
  },
  // The same run-and-respond path as the first answer, as a replay of the recorded run, in the recorded
  // format, under the recorded Simulation-Id. A replay is limited like a history replay (DECISIONS "Fair
  // use under load"): a rate entry and a slot while it streams, the account's current per-request maximum,
  // no monthly quota and no ledger row.
  replay: async (ctx, kept) => {
    const recorded = recordedRunSchema.safeParse(kept.response);
    if (!recorded.success) {
      throw internalError();
    }
    const { simulationId, model, format, ...run } = recorded.data;
    const stored = model === undefined ? undefined : await services.models.recorded(requirePrincipal(ctx.state).accountId, model.name, model.version);
    if ((model === undefined && resolvePreset(run.preset) === undefined) || stored === null || (model !== undefined && stored?.spec.digest !== model.digest)) {
      throw internalError();
    }
    const spec: RunSpecification = { ...run, simulationId, ...(stored === undefined ? {} : { model: stored.spec }) };
    const principal = requirePrincipal(ctx.state);
    const admission = await admitReplayRun(services, { principal, requestId: ctx.state.requestId, replay: spec });
    presentRateLimit(ctx, admission.headers);
    if ('refusal' in admission) {
      throw admission.refusal;
    }
    const { run: replay } = admission;
    await holdWhileAnswering(ctx, services.logger, replay, async () => {
      const body = await replay.execute({ format, ...watchClient(ctx) });
      await presentSimulation(ctx, services, { spec, body, format, replayed: true });
      ctx.status = kept.status;
    });
  },
});
