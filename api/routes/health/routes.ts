import Router from '@koa/router';
import { API_VERSION } from '../../../shared/version.ts';
import type { AppState } from '../../AppState.ts';
import type { Services } from '../../Services.ts';
import { checkDependencies } from '../../health/checkDependencies.ts';
import type { ReadinessResponse } from './schema.ts';

export const healthRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();

  // Liveness: no I/O at all, so a slow database never gets a healthy process restarted.
  router.get('/health', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok', version: API_VERSION };
  });

  router.get('/ready', async (ctx) => {
    const { database, redis } = await checkDependencies(services);
    const ready = database && redis && !services.lifecycle.draining;
    const body: ReadinessResponse = {
      status: ready ? 'ready' : 'not_ready',
      database: database ? 'connected' : 'disconnected',
      redis: redis ? 'connected' : 'disconnected',
      version: API_VERSION,
    };
    ctx.set('Cache-Control', 'no-store');
    ctx.status = ready ? 200 : 503;
    ctx.body = body;
  });

  return router;
};
