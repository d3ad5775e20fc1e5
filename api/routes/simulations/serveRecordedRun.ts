import type { ParameterizedContext } from 'koa';
import type { OutputFormat } from '../../../shared/engine/outputFormat.ts';
import { AppError } from '../../../shared/errors/AppError.ts';
import type { AppState, Principal } from '../../AppState.ts';
import { serveRecords } from '../../bulk/serveRecords.ts';
import { admitReplayRun } from '../../runs/admitReplayRun.ts';
import type { Run } from '../../runs/createRun.ts';
import { findReplay } from '../../runs/findReplay.ts';
import type { Services } from '../../Services.ts';
import { holdWhileAnswering } from './holdWhileAnswering.ts';
import { presentRateLimit } from './presentRateLimit.ts';

/**
 * A recorded run's records made again, as GET /v1/simulations/{id}/records and a download link serve them
 * (docs/bulk-data.md): the run looked up → admitted like a replay (the rate limit, then the run's refusal:
 * 404, 409, 410, then a slot) → its records, resumable and coded per Accept-Encoding. The run's refusal is
 * answered after the rate limiter counted the request, so probing ids costs rate like any attempt.
 * `beforeServing` sets what the route adds to the answer's headers.
 */
export const serveRecordedRun = async (
  ctx: ParameterizedContext<AppState>,
  services: Services,
  input: { readonly principal: Principal; readonly simulationId: string; readonly format: OutputFormat; readonly beforeServing?: (run: Run) => void },
): Promise<void> => {
  const replay = await findReplay(services, { accountId: input.principal.accountId, simulationId: input.simulationId });
  const admission = await admitReplayRun(services, { principal: input.principal, requestId: ctx.state.requestId, replay: replay instanceof AppError ? replay : replay.spec });
  presentRateLimit(ctx, admission.rateLimit);
  if ('refusal' in admission) {
    throw admission.refusal;
  }
  const { run } = admission;
  await holdWhileAnswering(ctx, services.logger, run, async () => {
    input.beforeServing?.(run);
    await serveRecords(ctx, services, { run, computeMs: replay instanceof AppError ? null : replay.computeMs, format: input.format });
  });
};
