import Router from '@koa/router';
import { resolvePreset } from '../../../shared/engine/index.ts';
import { internalError } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import { jsonBody } from '../../middleware/jsonBody.ts';
import { validateBody } from '../../middleware/validate.ts';
import type { Services } from '../../Services.ts';
import { runSimulation, type SimulationRequest } from '../../simulations/runSimulation.ts';
import { simulationRequestSchema, type SimulationRequestBody } from './schema.ts';

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

  // The contract, in order (DECISIONS "Order of checks"): authenticate → rate limit (issue 6) → parse and
  // validate → per-request maximum, monthly quotas, concurrency slot (issue 6, at admission) → run.
  router.post('/v1/simulations', authenticate(services), jsonBody(), validateBody(simulationRequestSchema), async (ctx) => {
    const body = await runSimulation(services, requirePrincipal(ctx.state), toSimulationRequest(ctx.state.input));
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/json';
    // The worker's bytes, as they are: serialized once in its thread, never parsed on the way here.
    ctx.body = body;
  });

  return router;
};
