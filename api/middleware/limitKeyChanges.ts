import type { Middleware } from 'koa';
import type { AppState } from '../AppState.ts';
import { requirePrincipal } from '../auth/requirePrincipal.ts';
import { admitKeyChange } from '../limits/admitKeyChange.ts';
import type { Services } from '../Services.ts';

/**
 * The rate limit of POST /v1/api-keys and POST /v1/api-keys/{key_id}/roll: every authenticated attempt
 * whose body passed validation counts, whatever it answers then (a key limit, an unknown key); a refused
 * body (400, 413, 415, 422) costs nothing (docs/fair-use.md). It sits after the Idempotency-Key check: an
 * idempotent replay of a creation creates nothing and answers what was kept, so it costs nothing here.
 */
export const limitKeyChanges = (services: Services): Middleware<AppState> =>
  async function limitKeyChanges(ctx, next) {
    const { accountId } = requirePrincipal(ctx.state);
    const refusal = await admitKeyChange(services, { accountId, requestId: ctx.state.requestId });
    if (refusal !== undefined) {
      throw refusal;
    }
    await next();
  };
