import type { Middleware } from 'koa';
import { resolvePreset } from '../../shared/engine/index.ts';
import { AppError } from '../../shared/errors/AppError.ts';
import { interactionsPerRequestExceeded, presetUnavailable } from '../../shared/errors/errors.ts';
import type { AppState, Principal } from '../AppState.ts';
import { recordLimitRejection } from '../metrics/recordLimitRejection.ts';
import { authenticateApiKeyCached } from '../auth/authenticateApiKey.ts';
import { requirePrincipal } from '../auth/requirePrincipal.ts';
import { jsonBody } from '../middleware/jsonBody.ts';
import { validateBody } from '../middleware/validate.ts';
import { simulationRequestSchema, type SimulationRequestBody } from '../routes/simulations/schema.ts';
import { isPresetAvailable } from '../routes/presets/isPresetAvailable.ts';
import { holdAdmission } from './holdAdmission.ts';
import type { SimulationAdmission } from './SimulationAdmission.ts';
import type { Services } from '../Services.ts';
import { admitSimulation } from '../limits/admitSimulation.ts';

export type AdmittedState = AppState & { input: SimulationRequestBody; admission: SimulationAdmission };

const noop = async (): Promise<void> => {};
// Built once: run as plain steps inside the admission, so their errors can wait for the rate limiter.
const readBody = jsonBody();
const validateSimulationBody = validateBody(simulationRequestSchema);

/**
 * The limits of POST /v1/simulations in the order of DECISIONS: rate limit → parse and validate →
 * per-request maximum → monthly requests → monthly interactions → concurrency slot. The body is parsed
 * first but its errors are answered only after the rate limiter has counted the request, so the whole
 * decision is one Redis round trip. A refused request keeps its place in the rate window and nothing
 * else.
 */
export const admitSimulationRequest =
  (services: Services): Middleware<AdmittedState> =>
  async (ctx, next) => {
    let principal = requirePrincipal(ctx.state);

    let bodyError: AppError | undefined;
    try {
      await readBody(ctx, noop);
      await validateSimulationBody(ctx, noop);
    } catch (error) {
      if (!(error instanceof AppError)) {
        throw error;
      }
      bodyError = error;
    }

    // Decided against the principal's plan; asked again with the reloaded principal if the cached one was stale.
    const admit = async (current: Principal) => {
      const { input } = ctx.state;
      let refused = bodyError;
      if (refused === undefined) {
        const preset = resolvePreset(input.preset);
        if (preset !== undefined && !isPresetAvailable(services.config, preset)) {
          refused = presetUnavailable(preset.name);
        } else if (input.num_interactions > current.limits.max_interactions_per_request) {
          refused = interactionsPerRequestExceeded(current.limits.max_interactions_per_request, input.num_interactions);
        }
      }
      const decision = await admitSimulation(services, {
        accountId: current.accountId,
        plan: current.limits,
        requestId: ctx.state.requestId,
        ...(refused === undefined ? { numInteractions: input.num_interactions } : {}),
        ...(current.authVersion === undefined ? {} : { authVersion: current.authVersion }),
      });
      return { decision, refused };
    };

    let { decision: admission, refused: deferredRefusal } = await admit(principal);
    if (admission.principalStale) {
      // The account changed since this process cached the key: authenticate from PostgreSQL (which may
      // now refuse it) and decide once more. The version was read before the credential, so a change
      // racing this request cannot be missed by one that returned before it began.
      const reloaded = await authenticateApiKeyCached(services, ctx.get('Authorization'), { reload: true });
      const { authVersion: _confirmed, ...fresh } = reloaded;
      principal = fresh;
      ctx.state.principal = fresh;
      ({ decision: admission, refused: deferredRefusal } = await admit(principal));
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
    if (admission.simulationId === undefined) {
      throw new Error('admission returned neither a refusal nor a simulation id');
    }

    const admitted: SimulationAdmission = {
      simulationId: admission.simulationId,
      accountId: principal.accountId,
      plan,
      period: admission.period,
      numInteractions: ctx.state.input.num_interactions,
      recorded: false,
      settled: false,
    };
    ctx.state.admission = admitted;
    await holdAdmission(ctx, services, admitted, () => !admitted.recorded, next);
  };
