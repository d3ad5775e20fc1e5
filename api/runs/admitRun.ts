import { AppError } from '../../shared/errors/AppError.ts';
import { interactionsPerRequestExceeded, presetUnavailable } from '../../shared/errors/errors.ts';
import { resolvePreset } from '../../shared/engine/index.ts';
import { recordOf } from '../../shared/runs/runSpecification.ts';
import type { Principal } from '../AppState.ts';
import { admitSimulation } from '../limits/admitSimulation.ts';
import { isMeteredRefusal, type RateLimitState } from '../limits/limitPolicy.ts';
import { recordLimitRejection } from '../metrics/recordLimitRejection.ts';
import { createRun, type Run } from './createRun.ts';
import { drawSeed } from './drawSeed.ts';
import { isPresetAvailable } from './isPresetAvailable.ts';
import type { RunDependencies } from './RunDependencies.ts';
import type { RunRequest } from './RunRequest.ts';

/**
 * What admission decided: the run, or why not; the RateLimit fields every answer past authentication
 * carries; and the principal it was decided for (reloaded when the cached one was stale).
 */
export type RunAdmission = { readonly rateLimit: RateLimitState; readonly principal: Principal } & (
  | { readonly run: Run }
  | { readonly refusal: AppError }
);

export interface AdmitRunInput {
  readonly principal: Principal;
  /** The parse stage's answer: the resolved request, or why the body is refused (answered after the rate limiter). */
  readonly request: RunRequest | AppError;
  readonly requestId: string;
  /** The principal again from PostgreSQL, for a cached one the account changed under (it may now be refused). */
  readonly reloadPrincipal: () => Promise<Principal>;
}

/** Why an admissible request is refused before the quotas: its preset out of service (409), or beyond the plan's maximum (403). */
const refusalOf = (deps: RunDependencies, principal: Principal, request: RunRequest): AppError | undefined => {
  // A model is never out of service; a preset may be (parsing resolved it, so it exists).
  const preset = request.model === undefined ? resolvePreset(request.preset) : undefined;
  if (preset !== undefined && !isPresetAvailable(deps.config, preset)) {
    return presetUnavailable(preset.name);
  }
  const maximum = principal.limits.max_interactions_per_request;
  return request.numInteractions > maximum ? interactionsPerRequestExceeded(maximum, request.numInteractions) : undefined;
};

/**
 * The admission of a new run, in the order of the contract (docs/api.md, order of checks): rate limit →
 * the parse stage's refusal (400/413/415/422, 404 model) → preset available (409) → per-request maximum
 * (403) → monthly requests → monthly interactions → concurrency slot, decided in one Redis round trip
 * (api/limits/admitSimulation.ts). The refusals after the rate limiter are decided here first but answered
 * only after it counted the request: a refused request keeps its place in the rate window and nothing else.
 * An admitted run is held by this process's lease keeper until its row is written.
 */
export const admitRun = async (deps: RunDependencies, input: AdmitRunInput): Promise<RunAdmission> => {
  const { request } = input;
  // Drawn once, at admission, so the run's inputs are final before it is recorded in flight (an idempotent
  // replay makes the run again from them). A refused body has none.
  const seed = request instanceof AppError ? undefined : (request.seed ?? drawSeed());

  // Decided against the principal's plan; asked again with the reloaded principal if the cached one was stale.
  const decide = async (principal: Principal) => {
    const refused = request instanceof AppError ? request : refusalOf(deps, principal, request);
    const decision = await admitSimulation(deps, {
      accountId: principal.accountId,
      plan: principal.limits,
      requestId: input.requestId,
      ...(refused === undefined && seed !== undefined && !(request instanceof AppError)
        ? {
            run: {
              ...recordOf({ ...request, seed }),
              accountId: principal.accountId,
              apiKeyId: principal.via.kind === 'api_key' ? principal.via.apiKeyId : null,
              sessionId: principal.via.kind === 'session' ? principal.via.sessionId : null,
            },
          }
        : {}),
      ...(principal.authVersion === undefined ? {} : { authVersion: principal.authVersion }),
    });
    return { decision, refused };
  };

  let principal = input.principal;
  let { decision, refused } = await decide(principal);
  if (decision.principalStale) {
    // The account changed since this process cached the key: authenticate from PostgreSQL (which may now
    // refuse it) and decide once more. The version was read before the credential, so a change racing
    // this request cannot be missed by one that returned before it began.
    const { authVersion: _confirmed, ...fresh } = await input.reloadPrincipal();
    principal = fresh;
    ({ decision, refused } = await decide(principal));
  }
  const { rateLimit } = decision;
  const refusal = decision.refusal ?? refused;
  if (refusal !== undefined) {
    if (isMeteredRefusal(refusal.code)) {
      recordLimitRejection(deps.metrics, refusal.code);
    }
    return { rateLimit, principal, refusal };
  }
  if (decision.simulationId === undefined || decision.admitted === undefined || seed === undefined || request instanceof AppError) {
    throw new Error('admission returned neither a refusal nor a simulation id');
  }
  const run = createRun(deps, {
    runId: decision.simulationId,
    accountId: principal.accountId,
    period: decision.period,
    spec: { ...request, simulationId: decision.simulationId, seed },
    admitted: decision.admitted,
  });
  deps.leases.hold(run);
  return { rateLimit, run, principal };
};
