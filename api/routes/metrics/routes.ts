import Router from '@koa/router';
import type { AppState } from '../../AppState.ts';
import { requireOperatorToken } from '../../middleware/requireOperatorToken.ts';
import type { Services } from '../../Services.ts';

/** Prometheus scrape endpoint: this process's series plus the queue's and the worker pools', read on scrape. */
export const metricsRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();
  const { metricsToken } = services.config;
  const guard = metricsToken === undefined ? [] : [requireOperatorToken(metricsToken, { realm: 'metrics' })];

  router.get('/metrics', ...guard, async (ctx) => {
    const { registry } = services.metrics;
    const text = await registry.metrics();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = registry.contentType;
    ctx.body = text;
  });

  return router;
};
