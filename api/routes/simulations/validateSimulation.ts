import type { Middleware } from 'koa';
import { AppError } from '../../../shared/errors/AppError.ts';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { jsonBody } from '../../middleware/jsonBody.ts';
import { validateBody } from '../../middleware/validate.ts';
import type { ModelRunRequest } from '../../runs/ModelRunRequest.ts';
import { resolveModelRequest } from '../../runs/resolveModelRequest.ts';
import type { Services } from '../../Services.ts';
import type { RunRequest } from '../../runs/RunRequest.ts';
import { simulationRequestSchema } from './schema.ts';

/**
 * `input` is the resolved request once the body passed; `bodyRefusal` is why it did not (400, 413, 415,
 * 422, or 404 `model_not_found`). Exactly one of them is set.
 */
export type ValidatedState = AppState & { input: RunRequest; bodyRefusal?: AppError };

/**
 * The validate stage of POST /v1/simulations: reads and parses the body and resolves what it asks for
 * (canonical preset or model version, profile, engine) into ctx.state.input, once. Its refusal is answered
 * by the admit stage, after the rate limiter has counted the attempt (DECISIONS "Order of checks": rate
 * limit → parse and validate), so the whole decision stays one Redis round trip. A preset is resolved
 * without I/O; a model with one indexed query (api/models/createModelStore.ts).
 */
export const validateSimulation = (services: Services): Middleware<ValidatedState> => {
  const readBody = jsonBody();
  const checkBody = validateBody(simulationRequestSchema);
  const done = async (): Promise<void> => {};
  return async function validate(ctx, next) {
    try {
      await readBody(ctx, done);
      await checkBody(ctx, done);
      const parsed = ctx.state.input as RunRequest | ModelRunRequest;
      if ('kind' in parsed) {
        const resolved = await resolveModelRequest(services, requirePrincipal(ctx.state).accountId, parsed);
        if (resolved instanceof AppError) {
          throw resolved;
        }
        ctx.state.input = resolved;
      }
    } catch (error) {
      if (!(error instanceof AppError)) {
        throw error;
      }
      ctx.state.bodyRefusal = error;
    }
    await next();
  };
};
