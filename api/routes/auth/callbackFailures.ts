import type { RouterMiddleware } from '@koa/router';
import { describeError } from '../../../shared/errors/describeError.ts';
import { LoginError } from '../../auth/LoginError.ts';
import type { AppState } from '../../AppState.ts';
import type { Services } from '../../Services.ts';
import { dropPreLoginSession } from './preLoginSession.ts';

/**
 * A browser on the callback must always land on the frontend: any failure (state mismatch, denied
 * consent, exchange or profile error, even a database outage) becomes a 302 to
 * `{FRONTEND_URL}/account?error=<code>`, with the pre-login state dropped and no session cookie.
 */
export const callbackFailures =
  (services: Services): RouterMiddleware<AppState> =>
  async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const code = error instanceof LoginError ? error.code : 'server_error';
      const log = { request_id: ctx.state.requestId, provider: ctx.params.provider, code, error: describeError(error) };
      if (code === 'server_error') {
        services.logger.error(log, 'sign-in failed');
      } else {
        services.logger.warn(log, 'sign-in refused');
      }
      // Headers set before the failure (a session cookie among them) must not survive it.
      ctx.remove('Set-Cookie');
      dropPreLoginSession(ctx);
      ctx.set('Cache-Control', 'no-store');
      ctx.redirect(`${services.config.frontendUrl}/account?error=${code}`);
    }
  };
