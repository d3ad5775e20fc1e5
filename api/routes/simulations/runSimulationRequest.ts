import type { Middleware } from 'koa';
import type { Services } from '../../Services.ts';
import { drawSeed } from '../../simulations/drawSeed.ts';
import { respondWithSimulation } from './respondWithSimulation.ts';
import type { SimulationState } from './simulationIdempotency.ts';

/** The run stage of POST /v1/simulations: the admitted request runs and is answered. */
export const runSimulationRequest = (services: Services): Middleware<SimulationState> =>
  async function run(ctx) {
    const { input, admission } = ctx.state;
    // Drawn here rather than in the run, so the run's inputs are final before it starts (an idempotent
    // replay regenerates the run from them).
    const request = { ...input, seed: input.seed ?? drawSeed() };
    const format = ctx.state.format ?? 'json';
    ctx.state.simulationRun = {
      simulationId: admission.simulationId,
      preset: request.preset.name,
      profile: request.profile,
      seed: request.seed,
      numInteractions: request.numInteractions,
      scenario: request.scenario,
      serviceVersion: request.serviceVersion,
      format,
    };
    await respondWithSimulation(ctx, services, request, admission, format);
  };
