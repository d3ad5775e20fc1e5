import type { Middleware } from 'koa';
import type { AppError } from '../../shared/errors/AppError.ts';
import { interactionsPerRequestExceeded, presetUnavailable } from '../../shared/errors/errors.ts';
import type { Principal } from '../AppState.ts';
import { recordLimitRejection } from '../metrics/recordLimitRejection.ts';
import { authenticateApiKeyCached } from '../auth/authenticateApiKey.ts';
import { requirePrincipal } from '../auth/requirePrincipal.ts';
import type { ValidatedState } from '../routes/simulations/validateSimulation.ts';
import { isPresetAvailable } from '../routes/presets/isPresetAvailable.ts';
import { holdAdmission } from './holdAdmission.ts';
import type { SimulationAdmission } from './SimulationAdmission.ts';
import type { Services } from '../Services.ts';
import { admitSimulation } from '../limits/admitSimulation.ts';
import { createRunLease } from './createRunLease.ts';
import { drawSeed } from './drawSeed.ts';
import { referenceOf } from './referenceOf.ts';
import { resolvePreset } from '../../shared/engine/index.ts';

export type AdmittedState = ValidatedState & { admission: SimulationAdmission };

/**
 * The admit stage of POST /v1/simulations, in the order of DECISIONS: rate limit → the validate stage's
 * refusal (400/413/415/422) → preset available (409) → per-request maximum (403) → monthly requests →
 * monthly interactions → concurrency slot, decided in one Redis round trip. The checks after the rate
 * limiter are decided here first but answered only after it has counted the request: a refused request
 * keeps its place in the rate window and nothing else.
 */
export const admitSimulationRequest = (services: Services): Middleware<AdmittedState> =>
  async function admit(ctx, next) {
    let principal = requirePrincipal(ctx.state);
    const { input, bodyRefusal } = ctx.state;
    // Drawn at admission (once, whatever is asked again), so the run's inputs are final before it is
    // recorded in flight (an idempotent replay regenerates the run from them). A refused body has none.
    let drawn: number | undefined;
    const seedOf = (): number => (drawn ??= input.seed ?? drawSeed());

    // Decided against the principal's plan; asked again with the reloaded principal if the cached one was stale.
    const decide = async (current: Principal) => {
      // The validate stage's refusal comes first, answered once the rate limiter has counted the attempt.
      let refused: AppError | undefined = bodyRefusal;
      if (refused === undefined) {
        // A model is never out of service; a preset may be (the validate stage resolved it, so it exists).
        const preset = input.model === undefined ? resolvePreset(input.preset) : undefined;
        if (preset !== undefined && !isPresetAvailable(services.config, preset)) {
          refused = presetUnavailable(preset.name);
        } else if (input.numInteractions > current.limits.max_interactions_per_request) {
          refused = interactionsPerRequestExceeded(current.limits.max_interactions_per_request, input.numInteractions);
        }
      }
      const { replayOf: _replayOf, model, seed: _seed, ...fields } = refused === undefined ? input : ({} as typeof input);
      const decision = await admitSimulation(services, {
        accountId: current.accountId,
        plan: current.limits,
        requestId: ctx.state.requestId,
        ...(refused === undefined
          ? {
              run: {
                ...fields,
                ...(model === undefined ? {} : { model: referenceOf(model) }),
                seed: seedOf(),
                accountId: current.accountId,
                apiKeyId: current.via.kind === 'api_key' ? current.via.apiKeyId : null,
                sessionId: current.via.kind === 'session' ? current.via.sessionId : null,
              },
            }
          : {}),
        ...(current.authVersion === undefined ? {} : { authVersion: current.authVersion }),
      });
      return { decision, refused };
    };

    let { decision: admission, refused: deferredRefusal } = await decide(principal);
    if (admission.principalStale) {
      // The account changed since this process cached the key: authenticate from PostgreSQL (which may
      // now refuse it) and decide once more. The version was read before the credential, so a change
      // racing this request cannot be missed by one that returned before it began.
      const reloaded = await authenticateApiKeyCached(services, ctx.get('Authorization'), { reload: true });
      const { authVersion: _confirmed, ...fresh } = reloaded;
      principal = fresh;
      ctx.state.principal = fresh;
      ({ decision: admission, refused: deferredRefusal } = await decide(principal));
    }
    const plan = principal.limits;
    for (const [name, value] of Object.entries(admission.headers)) {
      ctx.set(name, value);
    }
    const refusal = admission.refusal ?? deferredRefusal;
    if (refusal !== undefined) {
      if (refusal.status === 429 || refusal.status === 403) {
        recordLimitRejection(services.metrics, refusal.code);
      }
      throw refusal;
    }
    if (admission.simulationId === undefined || admission.admitted === undefined) {
      throw new Error('admission returned neither a refusal nor a simulation id');
    }

    const terms = {
      simulationId: admission.simulationId,
      accountId: principal.accountId,
      plan,
      period: admission.period,
      numInteractions: input.numInteractions,
    };
    // A new run's lease: its slot, its quota, its in-flight entry and its ledger row.
    const lease = createRunLease(services, terms, admission.admitted);
    services.leases.hold(lease);
    const admitted: SimulationAdmission = { ...terms, seed: seedOf(), lease };
    ctx.state.admission = admitted;
    await holdAdmission(ctx, services, admitted, next);
  };
