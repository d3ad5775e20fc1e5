import Router from '@koa/router';
import { listPlans } from '../../../shared/db/queries/plans.ts';
import type { AppState } from '../../AppState.ts';
import type { Services } from '../../Services.ts';
import type { Plan } from './schema.ts';

/**
 * The plans and their limits, public like the preset catalog: what a larger plan allows is no secret, and
 * a caller can compare before signing in. Read from the database, where plans live, on every request (a
 * few rows), so an operator's change shows at once.
 */
export const planRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();

  router.get('/v1/plans', async (ctx) => {
    const rows = await listPlans(services.pool);
    const body: Plan[] = rows.map((row) => ({
      name: row.name,
      requests_per_minute: row.requests_per_minute,
      monthly_requests: row.monthly_requests,
      monthly_interactions: row.monthly_interactions,
      max_interactions_per_request: row.max_interactions_per_request,
      max_concurrent_simulations: row.max_concurrent_simulations,
      max_active_api_keys: row.max_active_api_keys,
      max_models: row.max_models,
      max_concurrent_streams: row.max_concurrent_streams,
    }));
    ctx.set('Cache-Control', 'public, max-age=60');
    ctx.body = body;
  });

  return router;
};
