import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { methodNotAllowed, notFound } from '../../shared/errors/errors.ts';
import type { AppState } from '../AppState.ts';

/**
 * After the routers had their turn: a known path with the wrong method is 405 with `Allow`, anything
 * else unanswered is 404 `not_found`. Done here rather than with router.allowedMethods({throw}), which
 * throws before it sets `Allow`.
 */
export const routeFallback =
  (routers: readonly Router<AppState>[]): Middleware<AppState> =>
  async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body !== undefined) {
      return;
    }
    const allowed = new Set<string>();
    for (const router of routers) {
      for (const layer of router.match(ctx.path, ctx.method).path) {
        for (const method of layer.methods) {
          allowed.add(method);
        }
      }
    }
    if (allowed.size > 0 && !allowed.has(ctx.method)) {
      throw methodNotAllowed([...allowed]);
    }
    throw notFound();
  };
