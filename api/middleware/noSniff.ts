import type { Middleware } from 'koa';
import type { AppState } from '../AppState.ts';

/**
 * `X-Content-Type-Options: nosniff` on every response the app writes (errors, 404/405, redirects, static
 * assets, /metrics, /docs, the queue dashboard): a browser then never reads a JSON error or a CSV body as
 * HTML or script. Set before anything else runs, since nothing downstream clears headers (errorHandler
 * renders errors itself, keeping them). Node's parser refusals, which never reach the app, carry it too
 * (createHttpServer).
 */
export const noSniff = (): Middleware<AppState> =>
  async function noSniff(ctx, next) {
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
  };
