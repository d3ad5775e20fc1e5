import Router from '@koa/router';
import { resolvePreset } from '../../../shared/engine/index.ts';
import { internalError } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { admitSimulationRequest } from '../../limits/admitSimulationRequest.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import type { Services } from '../../Services.ts';
import { runSimulation, type SimulationRequest } from '../../simulations/runSimulation.ts';
import type { SimulationRequestBody } from './schema.ts';

/** Names resolved once validation has proved they exist: the canonical preset and the profile to use. */
const toSimulationRequest = (body: SimulationRequestBody): SimulationRequest => {
  const preset = resolvePreset(body.preset);
  if (preset === undefined) {
    throw internalError();
  }
  return { preset, profile: body.profile ?? preset.default_profile, seed: body.seed, numInteractions: body.num_interactions };
};

export const simulationRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();

  // The contract, in order (DECISIONS "Order of checks"): authenticate → rate limit → parse and validate →
  // per-request maximum → monthly quotas → concurrency slot → run. All but authentication are in
  // admitSimulationRequest, which decides them in one Redis round trip.
  router.post('/v1/simulations', authenticate(services), admitSimulationRequest(services), async (ctx) => {
    const body = await runSimulation(services, requirePrincipal(ctx.state), toSimulationRequest(ctx.state.input), ctx.state.admission);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/json';
    // The worker's bytes, as they are: serialized once in its thread, never parsed on the way here.
    ctx.body = body;
  });

  return router;
};
