import type { Middleware } from 'koa';
import type { AppState } from '../../AppState.ts';
import { confirmPrincipal } from '../../auth/confirmPrincipal.ts';
import { jsonBody } from '../../middleware/jsonBody.ts';
import { validateBody } from '../../middleware/validate.ts';
import type { SimulationRequest } from '../../simulations/runSimulation.ts';
import type { Services } from '../../Services.ts';
import { simulationRequestSchema } from './schema.ts';

export type ValidatedState = AppState & { input: SimulationRequest };

/**
 * The validate stage of POST /v1/simulations: reads and parses the body (400, 413, 415, 422) and resolves
 * what it asks for (canonical preset, profile, engine) into ctx.state.input, once. It answers before the
 * limits, so a body the service would never run costs no rate-window entry. A key cached in this process
 * is confirmed before its error is answered: authentication stays first (a revoked key gets 401, not 422).
 */
export const validateSimulation = (services: Services): Middleware<ValidatedState> => {
  const readBody = jsonBody();
  const checkBody = validateBody(simulationRequestSchema);
  const done = async (): Promise<void> => {};
  return async function validate(ctx, next) {
    try {
      await readBody(ctx, done);
      await checkBody(ctx, done);
    } catch (error) {
      await confirmPrincipal(services, ctx);
      throw error;
    }
    await next();
  };
};
