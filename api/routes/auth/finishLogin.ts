import type { RouterMiddleware } from '@koa/router';
import { completeLogin } from '../../auth/completeLogin.ts';
import { fetchGithubProfile } from '../../auth/fetchGithubProfile.ts';
import { fetchGoogleProfile } from '../../auth/fetchGoogleProfile.ts';
import { LoginError } from '../../auth/LoginError.ts';
import { readSessionCookie } from '../../auth/readSessionCookie.ts';
import { sealSessionId, serializeSessionCookie } from '../../auth/sessionCookie.ts';
import type { AppState } from '../../AppState.ts';
import type { Services } from '../../Services.ts';
import { dropPreLoginSession } from './preLoginSession.ts';
import { routeProvider } from './requireProvider.ts';

interface GrantCallbackState {
  readonly grant?: { readonly response?: { readonly access_token?: unknown; readonly error?: unknown } };
}

/**
 * The end of the callback chain, after grant exchanged the code: fetch the profile, find or create the
 * account, start a session, set its cookie and land on the frontend. Failures are LoginErrors, which
 * callbackFailures turns into `?error=` redirects.
 */
export const finishLogin =
  (services: Services): RouterMiddleware<AppState> =>
  async (ctx) => {
    const { config } = services;
    const provider = routeProvider(ctx.params);
    const response = (ctx.state as GrantCallbackState).grant?.response;
    const accessToken = response?.access_token;
    if (typeof accessToken !== 'string' || accessToken === '') {
      throw new LoginError('exchange_failed', 'the code exchange returned no access token');
    }
    const profile =
      provider === 'github'
        ? await fetchGithubProfile(config.oauth.github, accessToken)
        : await fetchGoogleProfile(config.oauth.google, accessToken);
    const previous = readSessionCookie(config, ctx);
    const login = await completeLogin(services.pool, profile, {
      now: services.now(),
      replacesSessionId: previous.kind === 'present' ? previous.sessionId : undefined,
    });
    // The pre-login state has served its purpose; nothing from before sign-in is carried over.
    dropPreLoginSession(ctx);
    ctx.append('Set-Cookie', serializeSessionCookie(config, sealSessionId(config, login.sessionId)));
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(`${config.frontendUrl}/account`);
    services.logger.info({ request_id: ctx.state.requestId, provider, account_id: login.accountId, created: login.created }, 'signed in');
  };
