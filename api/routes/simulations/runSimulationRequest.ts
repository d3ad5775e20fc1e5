import type { Middleware } from 'koa';
import type { Services } from '../../Services.ts';
import { presentSimulation } from './presentSimulation.ts';
import type { SimulationState } from './simulationIdempotency.ts';
import { watchClient } from './watchClient.ts';

/** The run stage of POST /v1/simulations: the admitted run runs and is answered. */
export const runSimulationRequest = (services: Services): Middleware<SimulationState> =>
  async function run(ctx) {
    const { spec } = ctx.state.admission;
    const format = ctx.state.format ?? 'json';
    // The run's inputs are final (admission drew its seed): what an idempotent replay makes again.
    ctx.state.simulationRun = { ...spec, format };
    const body = await ctx.state.admission.execute({ format, ...watchClient(ctx) });
    await presentSimulation(ctx, services, { spec, body, format, replayed: false });
  };
