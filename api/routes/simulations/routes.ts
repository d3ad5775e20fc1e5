import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { resolveEngineVersion, resolvePreset } from '../../../shared/engine/index.ts';
import { internalError } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import { admitSimulationRequest } from '../../simulations/admitSimulationRequest.ts';
import { idempotent } from '../../idempotency/idempotent.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import type { Services } from '../../Services.ts';
import { drawSeed } from '../../simulations/drawSeed.ts';
import type { SimulationRequest } from '../../simulations/runSimulation.ts';
import { negotiateFormat } from './negotiateFormat.ts';
import type { SimulationRequestBody } from './schema.ts';
import { respondWithSimulation } from './respondWithSimulation.ts';
import { type SimulationState, simulationIdempotency } from './simulationIdempotency.ts';

/** Names resolved once validation has proved they exist: the canonical preset, the profile and the exact engine to use. */
const toSimulationRequest = (body: SimulationRequestBody): SimulationRequest & { readonly seed: number } => {
  const preset = resolvePreset(body.preset);
  const serviceVersion = resolveEngineVersion(body.engine_version);
  if (preset === undefined || serviceVersion === undefined) {
    throw internalError();
  }
  // Drawn here rather than in the run, so the run's inputs are final before it starts (an idempotent
  // replay regenerates the run from them).
  return { preset, profile: body.profile ?? preset.default_profile, seed: body.seed ?? drawSeed(), numInteractions: body.num_interactions, serviceVersion };
};

export const simulationRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();

  // The contract, in order (DECISIONS "Order of checks"): authenticate → format (406, never counted) →
  // rate limit → parse and validate → per-request maximum → monthly quotas → concurrency slot → run. The
  // limits are in admitSimulationRequest, which decides them in one Redis round trip. Idempotency-Key sits
  // before the limits: a replay counts against none of them, and answers in the recorded format.
  router.post(
    '/v1/simulations',
    authenticate(services, { cached: true }),
    negotiateFormat(),
    idempotent(services, simulationIdempotency(services)),
    admitSimulationRequest(services),
    async (ctx: ParameterizedContext<SimulationState>) => {
      const request = toSimulationRequest(ctx.state.input);
      const { admission } = ctx.state;
      const format = ctx.state.format ?? 'json';
      ctx.state.simulationRun = {
        simulationId: admission.simulationId,
        preset: request.preset.name,
        profile: request.profile,
        seed: request.seed,
        numInteractions: request.numInteractions,
        serviceVersion: request.serviceVersion,
        format,
      };
      await respondWithSimulation(ctx, services, request, admission, format);
    },
  );

  return router;
};
