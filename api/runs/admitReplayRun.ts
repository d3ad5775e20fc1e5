import { AppError } from '../../shared/errors/AppError.ts';
import { interactionsPerRequestExceeded } from '../../shared/errors/errors.ts';
import type { RunSpecification } from '../../shared/runs/runSpecification.ts';
import type { Principal } from '../AppState.ts';
import { admitReplay } from '../limits/admitReplay.ts';
import { isMeteredRefusal } from '../limits/limitPolicy.ts';
import { recordLimitRejection } from '../metrics/recordLimitRejection.ts';
import type { RunAdmission } from './admitRun.ts';
import { createRun } from './createRun.ts';
import type { RunDependencies } from './RunDependencies.ts';

export interface AdmitReplayRunInput {
  readonly principal: Principal;
  readonly requestId: string;
  /** The recorded run to make again, or why it cannot be (404, 409, 410, 422: answered after the rate limiter). */
  readonly replay: RunSpecification | AppError;
}

/**
 * The admission of a replay, the same for a history replay (GET /v1/simulations/{id}/records, a download,
 * a dataset) and an idempotent replay of POST /v1/simulations (docs/fair-use.md, replays are limited): the
 * rate limit (429, counted like a new run) → why the run cannot be replayed → the account's current
 * per-request maximum (403: a plan that shrank since the run does not replay what it could not run) → a
 * concurrency slot (429). No monthly quota is read or taken and no row is written: a replay is not a new
 * run. Refusals after the rate limiter are decided first and answered once it counted the request, so the
 * decision is one Redis round trip (api/limits/admitReplay.ts).
 */
export const admitReplayRun = async (deps: RunDependencies, input: AdmitReplayRunInput): Promise<RunAdmission> => {
  const { principal, replay } = input;
  const maximum = principal.limits.max_interactions_per_request;
  const deferred =
    replay instanceof AppError ? replay : replay.numInteractions > maximum ? interactionsPerRequestExceeded(maximum, replay.numInteractions) : undefined;
  const admission = await admitReplay(deps, {
    accountId: principal.accountId,
    plan: principal.limits,
    requestId: input.requestId,
    wantsSlot: deferred === undefined,
  });
  const { rateLimit } = admission;
  const refusal = admission.refusal ?? deferred;
  if (refusal !== undefined) {
    if (isMeteredRefusal(refusal.code)) {
      recordLimitRejection(deps.metrics, refusal.code);
    }
    return { rateLimit, principal, refusal };
  }
  if (admission.runId === undefined || replay instanceof AppError) {
    throw new Error('replay admission returned neither a refusal nor a slot');
  }
  // No ledger row and no quota: the run frees its slot and nothing else.
  return { rateLimit, principal, run: createRun(deps, { runId: admission.runId, accountId: principal.accountId, period: admission.period, spec: replay }) };
};
