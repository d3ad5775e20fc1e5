import type { ParameterizedContext } from 'koa';
import { AppError } from '../../../shared/errors/AppError.ts';
import type { AppState } from '../../AppState.ts';
import { jsonBody } from '../../middleware/jsonBody.ts';
import { parseInput } from '../../middleware/validate.ts';
import { resolveModelRequest } from '../../runs/resolveModelRequest.ts';
import type { RunRequest } from '../../runs/RunRequest.ts';
import type { Services } from '../../Services.ts';
import { simulationRequestSchema } from './schema.ts';

const readBody = jsonBody();
const noop = async (): Promise<void> => {};

/**
 * The parse stage of POST /v1/simulations: reads the body and resolves what it asks for (canonical preset
 * or model version, profile, engine), once. Its refusal (400, 413, 415, 422, or 404 `model_not_found`) is a
 * value, not thrown: admission answers it after the rate limiter counted the attempt (docs/api.md, order
 * of checks), so the whole decision stays one Redis round trip. A preset is resolved without I/O; a model
 * with one indexed query (api/models/createModelStore.ts).
 */
export const parseSimulationRequest = async (services: Services, ctx: ParameterizedContext<AppState>, accountId: string): Promise<RunRequest | AppError> => {
  try {
    await readBody(ctx, noop);
    const parsed = parseInput(simulationRequestSchema, ctx.state.body);
    return 'kind' in parsed ? await resolveModelRequest(services, accountId, parsed) : parsed;
  } catch (error) {
    if (error instanceof AppError) {
      return error;
    }
    throw error;
  }
};
