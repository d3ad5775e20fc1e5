import type { Middleware } from 'koa';
import type { PlanRow } from '../../shared/db/queries/plans.ts';
import { resolvePreset } from '../../shared/engine/index.ts';
import { AppError } from '../../shared/errors/AppError.ts';
import { interactionsPerRequestExceeded, presetUnavailable } from '../../shared/errors/errors.ts';
import type { MonthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import type { AppState } from '../AppState.ts';
import { recordLimitRejection } from '../metrics/recordLimitRejection.ts';
import { requirePrincipal } from '../auth/requirePrincipal.ts';
import { jsonBody } from '../middleware/jsonBody.ts';
import { validateBody } from '../middleware/validate.ts';
import { simulationRequestSchema, type SimulationRequestBody } from '../routes/simulations/schema.ts';
import { isPresetAvailable } from '../routes/presets/isPresetAvailable.ts';
import type { Services } from '../Services.ts';
import { admitSimulation, releaseSimulation } from './admitSimulation.ts';

/** What admission took for a request, and what has to be handed back when it ends. */
export interface SimulationAdmission {
  readonly simulationId: string;
  readonly accountId: string;
  readonly plan: PlanRow;
  readonly period: MonthlyPeriod;
  readonly numInteractions: number;
  /** Set once the ledger row exists. */
  recorded: boolean;
  /** Set by settlement once the ledger row left `queued` and the quota and slot were dealt with. */
  settled: boolean;
}

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
    const principal = requirePrincipal(ctx.state);
    const plan = principal.limits;

    let deferred: AppError | undefined;
    try {
      await readBody(ctx, noop);
      await validateSimulationBody(ctx, noop);
    } catch (error) {
      if (!(error instanceof AppError)) {
        throw error;
      }
      deferred = error;
    }
    if (deferred === undefined) {
      const { input } = ctx.state;
      const preset = resolvePreset(input.preset);
      if (preset !== undefined && !isPresetAvailable(services.config, preset)) {
        deferred = presetUnavailable(preset.name);
      } else if (input.num_interactions > plan.max_interactions_per_request) {
        deferred = interactionsPerRequestExceeded(plan.max_interactions_per_request, input.num_interactions);
      }
    }

    const admission = await admitSimulation(services, {
      accountId: principal.accountId,
      plan,
      requestId: ctx.state.requestId,
      ...(deferred === undefined ? { numInteractions: ctx.state.input.num_interactions } : {}),
    });
    for (const [name, value] of Object.entries(admission.headers)) {
      ctx.set(name, value);
    }
    const refusal = admission.refusal ?? deferred;
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
    // A client that hangs up stops holding its concurrency slot; the run itself settles as usual.
    const releaseSlotOnHangUp = (): void => {
      if (!ctx.res.writableFinished) {
        releaseSimulation(services, { ...admitted, giveBack: false }).catch(() => {});
      }
    };
    ctx.res.once('close', releaseSlotOnHangUp);
    try {
      await next();
    } finally {
      ctx.res.off('close', releaseSlotOnHangUp);
      if (!admitted.settled) {
        // Without a ledger row nothing durable holds the reservation: hand all of it back now. With one,
        // the row is the truth: free the slot, and the stale-run sweeper gives the quota back when it
        // settles the row, so the quota is never given back twice.
        await releaseSimulation(services, { ...admitted, giveBack: !admitted.recorded });
      }
    }
  };
