import type { ParameterizedContext } from 'koa';

/** The RateLimit fields admission answered with: on every answer past authentication, refusals included. */
export const presentRateLimit = (ctx: ParameterizedContext, headers: Readonly<Record<string, string>>): void => {
  for (const [name, value] of Object.entries(headers)) {
    ctx.set(name, value);
  }
};
