import Router from '@koa/router';
import { validationFailed } from '../../../shared/errors/errors.ts';
import { monthlyPeriod, type MonthlyPeriod } from '../../../shared/limits/monthlyPeriod.ts';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import { validateQuery } from '../../middleware/validate.ts';
import type { Services } from '../../Services.ts';
import { dailyUsageQuerySchema, type DailyUsageResponse } from './dailyUsageSchema.ts';
import { presentDailyUsage } from './presentDailyUsage.ts';
import { presentUsage } from './presentUsage.ts';
import { inflightUsageRows } from './inflightUsageRows.ts';
import { readDailyRunUsage, readRunUsage } from '../../runs/readRunUsage.ts';

/** The period a `YYYY-MM` names; monthlyPeriod is left to the current month, which it caches. */
const periodOf = (key: string): MonthlyPeriod => {
  const [year, month] = key.split('-').map(Number) as [number, number];
  return { start: new Date(Date.UTC(year, month - 1, 1)), end: new Date(Date.UTC(year, month, 1)), key };
};

export const usageRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();

  // Read from the ledger, the durable truth, so the figures survive any loss of Redis, with the runs
  // settled whose rows are still being written (api/runs/readRunUsage.ts).
  router.get('/v1/usage', authenticate(services), async (ctx) => {
    const principal = requirePrincipal(ctx.state);
    const plan = principal.limits;
    const period = monthlyPeriod(services.now());
    const usage = await readRunUsage(services, principal.accountId, period);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = presentUsage(plan, period, usage);
  });

  // The same figures over time: by day and by credential, from the ledger's daily rollup (migration 0011),
  // the streams and the runs in flight.
  router.get('/v1/usage/daily', authenticate(services), validateQuery(dailyUsageQuerySchema), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const query = ctx.state.input;
    const now = services.now();
    const current = monthlyPeriod(now);
    const period = query.period === undefined ? current : periodOf(query.period);
    if (period.start > current.start) {
      throw validationFailed([{ path: 'period', message: `A month that has not begun yet; the current month is ${current.key}.` }]);
    }
    const credential =
      query.credential === undefined
        ? undefined
        : query.credential === 'session'
          ? { type: 'session' as const }
          : { type: 'api_key' as const, apiKeyId: query.credential };
    // The current month's runs in flight, or settled with their rows being written, are in Redis, not yet in
    // the ledger's rollup; streams are counted from their own table, as GET /v1/usage counts them
    // (docs/limits.md).
    const filter = { accountId, periodStart: period.start.toISOString(), ...(credential === undefined ? {} : { credential }) };
    const { rows, pending } = await readDailyRunUsage(services, filter, period, period.key === current.key);
    const body: DailyUsageResponse = presentDailyUsage(period, now, [...rows, ...inflightUsageRows(pending, period, credential)]);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  });

  return router;
};
