import type { ParameterizedContext } from 'koa';
import { type RateLimitState, rateLimitHeaders } from '../../limits/limitPolicy.ts';

/** The RateLimit fields of the window admission left: on every answer past authentication, refusals included. */
export const presentRateLimit = (ctx: ParameterizedContext, rateLimit: RateLimitState): void => {
  for (const [name, value] of Object.entries(rateLimitHeaders(rateLimit))) {
    ctx.set(name, value);
  }
};
