import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from '../AppState.ts';

export const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a well-formed caller X-Request-ID so traces join up across systems; anything else is replaced. */
export const requestId = (): Middleware<AppState> => async (ctx, next) => {
  const given = ctx.get('X-Request-ID');
  ctx.state.requestId = ACCEPTABLE_REQUEST_ID.test(given) ? given : randomUUID();
  ctx.set('X-Request-ID', ctx.state.requestId);
  await next();
};
