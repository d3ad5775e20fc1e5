import type { ParameterizedContext } from 'koa';
import { AppError } from '../../shared/errors/AppError.ts';
import { interactionsPerRequestExceeded } from '../../shared/errors/errors.ts';
import type { AppState } from '../AppState.ts';
import { requirePrincipal } from '../auth/requirePrincipal.ts';
import { recordLimitRejection } from '../metrics/recordLimitRejection.ts';
import { holdAdmission } from '../simulations/holdAdmission.ts';
import type { SimulationRequest } from '../simulations/SimulationRequest.ts';
import type { SimulationAdmission } from '../simulations/SimulationAdmission.ts';
import type { Services } from '../Services.ts';
import { admitReplay } from './admitReplay.ts';
import { createRunLease } from '../simulations/createRunLease.ts';

/**
 * The admission of a replay, the same for a history replay (GET /v1/simulations/{id}/records) and an
 * idempotent replay of POST /v1/simulations (docs/fair-use.md#replays): the
 * rate limit (429, counted like a new run) → why the run cannot be replayed (`replay` is an error: 404,
 * 409, 410) → the account's current per-request maximum (403: a plan that shrank since the run does not
 * replay what it could not run) → a concurrency slot (429), held while `run` answers and its stream lasts.
 * No monthly quota is read or taken: a replay is not a new run. Refusals after the rate limiter are
 * decided first and answered once it has counted the request, so the decision is one Redis round trip.
 */
export const holdReplayAdmission = async (
  ctx: ParameterizedContext<AppState>,
  services: Services,
  replay: SimulationRequest | AppError,
  run: (admission: SimulationAdmission) => Promise<void>,
): Promise<void> => {
  const principal = requirePrincipal(ctx.state);
  const maximum = principal.limits.max_interactions_per_request;
  const deferred =
    replay instanceof AppError ? replay : replay.numInteractions > maximum ? interactionsPerRequestExceeded(maximum, replay.numInteractions) : undefined;

  const admission = await admitReplay(services, {
    accountId: principal.accountId,
    plan: principal.limits,
    requestId: ctx.state.requestId,
    wantsSlot: deferred === undefined,
  });
  for (const [name, value] of Object.entries(admission.headers)) {
    ctx.set(name, value);
  }
  const refusal = admission.refusal ?? deferred;
  if (refusal !== undefined) {
    if (refusal.status === 429 || refusal.code === 'interactions_per_request_exceeded') {
      recordLimitRejection(services.metrics, refusal.code);
    }
    throw refusal;
  }
  if (admission.replayId === undefined || replay instanceof AppError) {
    throw new Error('replay admission returned neither a refusal nor a slot');
  }
  const terms = {
    simulationId: admission.replayId,
    accountId: principal.accountId,
    plan: principal.limits,
    period: admission.period,
    numInteractions: replay.numInteractions,
  };
  // No ledger row and no quota: the lease frees its slot and nothing else.
  const admitted: SimulationAdmission = { ...terms, lease: createRunLease(services, terms) };
  await holdAdmission(ctx, services, admitted, () => run(admitted));
};
