import Router from '@koa/router';
import { sumCompletedUsage } from '../../../shared/db/queries/usage.ts';
import { monthlyPeriod } from '../../../shared/limits/monthlyPeriod.ts';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import type { Services } from '../../Services.ts';
import { presentUsage } from './presentUsage.ts';

export const usageRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();

  // Read from the ledger, the durable truth, so the figures survive any loss of Redis.
  router.get('/v1/usage', authenticate(services), async (ctx) => {
    const principal = requirePrincipal(ctx.state);
    const plan = principal.limits;
    const period = monthlyPeriod(services.now());
    const usage = await sumCompletedUsage(services.pool, principal.accountId, period.start);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = presentUsage(plan, period, usage);
  });

  return router;
};
