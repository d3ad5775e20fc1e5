import type { Middleware } from 'koa';
import { authenticationRequired } from '../../shared/errors/errors.ts';
import type { AppState } from '../AppState.ts';
import { authenticateApiKey } from '../auth/authenticateApiKey.ts';
import { authenticateSession } from '../auth/authenticateSession.ts';
import type { Services } from '../Services.ts';

/**
 * Proves who is calling and sets ctx.state.principal, or throws: 401 `authentication_required` without
 * credentials, 401 `invalid_credentials` for a bad key, 403 `account_disabled`. A request that sends an
 * Authorization header is judged by it alone (never by a query parameter, which would end up in logs);
 * only a request without one falls back to the browser session.
 */
export const authenticate =
  (services: Services): Middleware<AppState> =>
  async (ctx, next) => {
    const authorization = ctx.get('Authorization');
    const principal = authorization === '' ? await authenticateSession(services, ctx) : await authenticateApiKey(services, authorization);
    if (principal === undefined) {
      throw authenticationRequired();
    }
    ctx.state.principal = principal;
    await next();
  };
