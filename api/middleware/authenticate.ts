import type { Middleware } from 'koa';
import { authenticationRequired } from '../../shared/errors/errors.ts';
import type { AppState } from '../AppState.ts';
import { authenticateApiKey, authenticateApiKeyCached } from '../auth/authenticateApiKey.ts';
import { authenticateSession } from '../auth/authenticateSession.ts';
import type { Services } from '../Services.ts';

/**
 * Proves who is calling and sets ctx.state.principal, or throws: 401 `authentication_required` without
 * credentials, 401 `invalid_credentials` for a bad key, 403 `account_disabled`. A request that sends an
 * Authorization header is judged by it alone (never by a query parameter, which would end up in logs);
 * only a request without one falls back to the browser session.
 *
 * `cached` (POST /v1/simulations only): a known API key is answered from this process's principal cache
 * without a PostgreSQL read; the route's admission script must then confirm `principal.authVersion` (see
 * api/runs/admitRun.ts), which keeps revocation, deactivation and plan changes exact. Every other route
 * reads PostgreSQL for its answer anyway, and authenticates from it too.
 */
export const authenticate = (services: Services, options: { cached?: boolean } = {}): Middleware<AppState> =>
  async function authenticate(ctx, next) {
    // The raw header, not ctx.get(), which answers '' for an absent header and an empty one alike.
    const authorization = ctx.req.headers.authorization;
    const principal =
      authorization === undefined
        ? await authenticateSession(services, ctx)
        : options.cached
          ? await authenticateApiKeyCached(services, authorization)
          : await authenticateApiKey(services, authorization);
    if (principal === undefined) {
      throw authenticationRequired();
    }
    ctx.state.principal = principal;
    await next();
  };
