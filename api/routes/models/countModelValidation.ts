import type { Middleware } from 'koa';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { admitReplay } from '../../limits/admitReplay.ts';
import { isMeteredRefusal } from '../../limits/limitPolicy.ts';
import { presentRateLimit } from '../simulations/presentRateLimit.ts';
import { recordLimitRejection } from '../../metrics/recordLimitRejection.ts';
import type { Services } from '../../Services.ts';

/**
 * POST /v1/models/validate counts in the rate window like a simulation (it generates a sample of 10,000
 * records) and against no quota (DECISIONS "Models"): the replay admission without a slot, which counts
 * the attempt, answers 429 beyond the window, and takes nothing else. Counted before the body is read,
 * as a simulation is (DECISIONS "Order of checks").
 */
export const countModelValidation = (services: Services): Middleware<AppState> =>
  async function countValidation(ctx, next) {
    const principal = requirePrincipal(ctx.state);
    const admission = await admitReplay(services, { accountId: principal.accountId, plan: principal.limits, requestId: ctx.state.requestId, wantsSlot: false });
    presentRateLimit(ctx, admission.rateLimit);
    if (admission.refusal !== undefined) {
      if (isMeteredRefusal(admission.refusal.code)) {
        recordLimitRejection(services.metrics, admission.refusal.code);
      }
      throw admission.refusal;
    }
    await next();
  };
