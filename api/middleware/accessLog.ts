import type { Middleware } from 'koa';
import type { Logger } from '../../shared/logger.ts';
import type { AppState } from '../AppState.ts';

// Load balancers and Kubernetes poll the probes every few seconds: at info they would drown every other line.
const PROBES = new Set(['/health', '/ready']);

/** One line per request (probes at debug). Path only: query strings can carry OAuth codes and states. */
export const accessLog =
  (logger: Logger): Middleware<AppState> =>
  async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      logger[PROBES.has(ctx.path) && ctx.method === 'GET' ? 'debug' : 'info'](
        {
          request_id: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          route: ctx.state.route,
          status: ctx.status,
          duration_ms: Math.round((performance.now() - started) * 100) / 100,
          account_id: ctx.state.principal?.accountId,
        },
        'request',
      );
    }
  };
