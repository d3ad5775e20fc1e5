import type Router from '@koa/router';
import Koa from 'koa';
import type { AppState } from './AppState.ts';
import { httpMetrics } from './metrics/httpMetrics.ts';
import { accessLog } from './middleware/accessLog.ts';
import { errorHandler } from './middleware/errorHandler.ts';
import { noSniff } from './middleware/noSniff.ts';
import { refuseUnmetRequests } from './middleware/refuseUnmetRequests.ts';
import { requestId } from './middleware/requestId.ts';
import { routeFallback } from './middleware/routeFallback.ts';
import { accountRoutes } from './routes/account/routes.ts';
import { adminRoutes } from './routes/admin/routes.ts';
import { apiKeyRoutes } from './routes/apiKeys/routes.ts';
import { authRoutes } from './routes/auth/routes.ts';
import { docsRoutes } from './routes/docs/routes.ts';
import { healthRoutes } from './routes/health/routes.ts';
import { metricsRoutes } from './routes/metrics/routes.ts';
import { modelRoutes } from './routes/models/routes.ts';
import { planRoutes } from './routes/plans/routes.ts';
import { presetRoutes } from './routes/presets/routes.ts';
import { downloadRoutes } from './routes/downloads/routes.ts';
import { historyRoutes } from './routes/simulations/historyRoutes.ts';
import { datasetRoutes } from './routes/simulations/datasetRoutes.ts';
import { simulationRoutes } from './routes/simulations/routes.ts';
import { usageRoutes } from './routes/usage/routes.ts';
import { streamRoutes } from './routes/streams/routes.ts';
import { webRoutes } from './routes/web/routes.ts';
import type { Services } from './Services.ts';

/** Builds the Koa app without listening, so tests mount it on port 0 and server.ts owns the socket. */
export const buildApp = (services: Services): Koa<AppState> => {
  const app = new Koa<AppState>();
  // Errors are rendered and logged by errorHandler; Koa's default printer would log stacks.
  app.silent = true;

  const routers: Router<AppState>[] = [healthRoutes(services), presetRoutes(services), accountRoutes(services), apiKeyRoutes(services), usageRoutes(services), planRoutes(services), modelRoutes(services), simulationRoutes(services), historyRoutes(services), datasetRoutes(services), streamRoutes(services), downloadRoutes(services), authRoutes(services, app), webRoutes(), metricsRoutes(services), adminRoutes(services), docsRoutes(services)];

  app.use(noSniff());
  app.use(requestId());
  app.use(accessLog(services.logger));
  app.use(httpMetrics(services.metrics));
  app.use(errorHandler(services.logger, services.redisHealth.isDown));
  app.use(refuseUnmetRequests());
  app.use(routeFallback(routers));
  for (const router of routers) {
    app.use(router.routes());
  }
  return app;
};
