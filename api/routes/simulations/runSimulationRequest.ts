import type { Middleware } from 'koa';
import type { Services } from '../../Services.ts';
import { internalError } from '../../../shared/errors/errors.ts';
import { respondWithSimulation } from './respondWithSimulation.ts';
import type { SimulationState } from './simulationIdempotency.ts';

/** The run stage of POST /v1/simulations: the admitted request runs and is answered. */
export const runSimulationRequest = (services: Services): Middleware<SimulationState> =>
  async function run(ctx) {
    const { input, admission } = ctx.state;
    // The seed admission drew (or the request's): the run's inputs are final before it starts (an
    // idempotent replay regenerates the run from them).
    const seed = admission.seed ?? input.seed;
    if (seed === undefined) {
      // A new run's admission always draws one.
      throw internalError();
    }
    const request = { ...input, seed };
    const format = ctx.state.format ?? 'json';
    ctx.state.simulationRun = { ...request, simulationId: admission.simulationId, format };
    await respondWithSimulation(ctx, services, request, admission, format);
  };
