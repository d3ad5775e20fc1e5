import type { Middleware } from 'koa';
import type { Logger } from '../../shared/logger.ts';
import type { AppState } from '../AppState.ts';

/** One line per request. Path only: query strings can carry OAuth codes and states. */
export const accessLog =
  (logger: Logger): Middleware<AppState> =>
  async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      logger.info(
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
