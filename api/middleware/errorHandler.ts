import type { Middleware } from 'koa';
import { describeError } from '../../shared/errors/describeError.ts';
import { ClientAbortedError } from '../../shared/errors/errors.ts';
import { toAppError } from '../../shared/errors/toAppError.ts';
import type { Logger } from '../../shared/logger.ts';
import type { AppState } from '../AppState.ts';

/**
 * The outermost renderer of the error envelope. It renders errors itself rather than through Koa's
 * onerror, which would drop the headers (Retry-After, Allow, RateLimit) that clients rely on.
 */
export const errorHandler =
  (logger: Logger, backingServiceDown: () => boolean): Middleware<AppState> =>
  async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const error = toAppError(thrown, backingServiceDown);
      if (thrown instanceof ClientAbortedError) {
        // Routine on a public API (a closed tab, a killed script), so not an error of ours.
        logger.info({ request_id: ctx.state.requestId }, 'client closed the connection mid-request');
      } else if (error.status >= 500) {
        logger.error({ request_id: ctx.state.requestId, error: describeError(thrown), code: error.code }, 'request failed');
      }
      ctx.status = error.status;
      for (const [name, value] of Object.entries(error.headers)) {
        ctx.set(name, value);
      }
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        error: {
          message: error.message,
          status_code: error.status,
          details: { code: error.code, ...error.details },
          request_id: ctx.state.requestId,
        },
      };
    }
  };
