import type { Middleware } from 'koa';
import type { AppState } from '../AppState.ts';
import type { Metrics } from './createMetrics.ts';

/** The label of every request no route matched: raw paths would give scanners unbounded label values. */
const UNMATCHED_ROUTE = 'unmatched';

/**
 * Times every request by the router's path template (`/v1/api-keys/:key_id`), never the raw path, and by
 * final status. It sits outside the error renderer, so a thrown error is counted with the status sent.
 * The template is also left in ctx.state.route for the access log.
 */
export const httpMetrics =
  (metrics: Metrics): Middleware<AppState> =>
  async (ctx, next) => {
    const end = metrics.httpRequestDuration.startTimer();
    try {
      await next();
    } finally {
      const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      const route = ctx.state.route ?? (typeof matched === 'string' ? matched : UNMATCHED_ROUTE);
      ctx.state.route = route;
      end({ method: ctx.method, route, status_code: String(ctx.status) });
    }
  };
