import Router from '@koa/router';
import type { AppState } from '../../AppState.ts';
import { requireOperatorToken } from '../../middleware/requireOperatorToken.ts';
import type { Services } from '../../Services.ts';
import { createQueueDashboard, QUEUE_DASHBOARD_PATH } from './createQueueDashboard.ts';

/**
 * The queue dashboard, only when ADMIN_TOKEN is set (otherwise these paths are unknown: 404 `not_found`).
 * The token is accepted as a Bearer token, for scripts, or as the password of HTTP Basic with any user
 * name, so that a browser can open the dashboard: its 401 challenges Basic, and the browser then sends
 * the credentials with every page, asset and API call under the path.
 */
export const adminRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();
  const { adminToken } = services.config;
  if (adminToken === undefined) {
    return router;
  }
  const guard = requireOperatorToken(adminToken, { realm: 'queue dashboard', allowBasic: true });
  const dashboard = createQueueDashboard(services.simulations.queue);
  router.all([QUEUE_DASHBOARD_PATH, `${QUEUE_DASHBOARD_PATH}/*rest`], guard, async (ctx, next) => {
    // bull-board routes with a router of its own, which would relabel the request with its inner paths.
    ctx.state.route = QUEUE_DASHBOARD_PATH;
    ctx.set('Cache-Control', 'no-store');
    await dashboard(ctx, next);
  });
  return router;
};
