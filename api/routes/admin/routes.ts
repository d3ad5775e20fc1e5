import Router, { type RouterMiddleware } from '@koa/router';
import { csrfRejected } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import { isSameOrigin } from '../../auth/isSameOrigin.ts';
import { jsonBody } from '../../middleware/jsonBody.ts';
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
  // A browser resends Basic credentials on its own, to any site's forms and scripts too: a dashboard action
  // (retry, clean, remove) sent that way must come from our own pages. A Bearer token is never ambient.
  const sameOriginActions: RouterMiddleware<AppState> = async (ctx, next) => {
    const safe = ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'OPTIONS';
    if (!safe && /^Basic /i.test(ctx.get('Authorization')) && !isSameOrigin(ctx, services.config.publicOrigin)) {
      throw csrfRejected();
    }
    await next();
  };
  // The dashboard's actions are clicks: no other site may frame it (clickjacking), set before the guard so
  // its 401 challenge carries them too.
  const denyFraming: RouterMiddleware<AppState> = async (ctx, next) => {
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Content-Security-Policy', "frame-ancestors 'none'");
    await next();
  };
  // The dashboard's own body parser would take any depth: its actions' JSON bodies are read here instead,
  // under the limits of every other body (16 KiB, 32 levels), and handed to it already parsed.
  const readBody = jsonBody();
  const boundedBody: RouterMiddleware<AppState> = async (ctx, next) => {
    if (typeof ctx.is('application/json') === 'string') {
      await readBody(ctx, async () => {});
      (ctx.request as { body?: unknown }).body = ctx.state.body ?? {};
    }
    await next();
  };
  router.all([QUEUE_DASHBOARD_PATH, `${QUEUE_DASHBOARD_PATH}/*rest`], denyFraming, guard, sameOriginActions, boundedBody, async (ctx, next) => {
    // bull-board routes with a router of its own, which would relabel the request with its inner paths.
    ctx.state.route = QUEUE_DASHBOARD_PATH;
    ctx.set('Cache-Control', 'no-store');
    await dashboard(ctx, next);
  });
  return router;
};
