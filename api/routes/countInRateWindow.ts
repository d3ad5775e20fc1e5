import type { Middleware } from 'koa';
import type { AppState } from '../AppState.ts';
import { requirePrincipal } from '../auth/requirePrincipal.ts';
import { admitReplay } from '../limits/admitReplay.ts';
import { isMeteredRefusal } from '../limits/limitPolicy.ts';
import { recordLimitRejection } from '../metrics/recordLimitRejection.ts';
import type { Services } from '../Services.ts';
import { presentRateLimit } from './simulations/presentRateLimit.ts';

/**
 * Counts a request that makes records but holds no simulation slot in the account's rate window, as a
 * simulation is counted (docs/limits.md#order-of-checks): POST /v1/models/validate (a sample of 10,000
 * records, docs/models.md#checking-without-storing-post-v1modelsvalidate) and POST /v1/streams (a run,
 * docs/streams.md#creating-one). It is the replay admission without a slot: it counts the attempt, answers
 * 429 beyond the window with Retry-After, sets the RateLimit headers, and takes nothing else. Counted before
 * the body is read, so a refused body still keeps its place in the window as a simulation's does.
 */
export const countInRateWindow = (services: Services): Middleware<AppState> =>
  async function countInWindow(ctx, next) {
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
