import Router from '@koa/router';
import type { AppState } from '../../AppState.ts';
import { idempotent } from '../../idempotency/idempotent.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import type { Services } from '../../Services.ts';
import { admitSimulationRequest } from './admitSimulationRequest.ts';
import { negotiateFormat as negotiate } from './negotiateFormat.ts';
import { runSimulationRequest } from './runSimulationRequest.ts';
import { simulationIdempotency } from './simulationIdempotency.ts';
import { validateSimulation } from './validateSimulation.ts';

export const simulationRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();

  // The contract (DECISIONS "Order of checks"): authenticate (401/403) → format (406, never counted) →
  // validate (reads the body and resolves it once) → Idempotency-Key (a replay counts against no limit) →
  // admit (rate limit, then validate's refusal 400/413/415/422, 409, the per-request maximum, monthly
  // quotas and the concurrency slot, in one Redis round trip) → run. validate's refusal waits for admit
  // because the rate limiter counts every authenticated attempt before the body is judged.
  router.post(
    '/v1/simulations',
    authenticate(services, { cached: true }),
    async function negotiateFormat(ctx, next) {
      ctx.state.format = negotiate(ctx);
      await next();
    },
    validateSimulation(services),
    idempotent(services, simulationIdempotency(services)),
    admitSimulationRequest(services),
    runSimulationRequest(services),
  );

  return router;
};
