import Router, { type RouterMiddleware } from '@koa/router';
import type Koa from 'koa';
import { methodNotAllowed } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import type { Services } from '../../Services.ts';
import { callbackFailures } from './callbackFailures.ts';
import { checkCallback } from './checkCallback.ts';
import { AUTH_PREFIX, createGrantMiddleware } from './createGrantMiddleware.ts';
import { finishLogin } from './finishLogin.ts';
import { logout } from './logout.ts';
import { preLoginSession } from './preLoginSession.ts';
import { requireProvider } from './requireProvider.ts';
import { signInProviders } from './signInProviders.ts';
import { startOnPublicHost } from './startOnPublicHost.ts';

/**
 * Endpoints 11–13. grant and the pre-login session are mounted on the two login routes only, so no other
 * route reads or writes the pre-login cookie, and grant never sees a path it would mistake for a provider.
 * koa-session needs the app (it extends the context prototype), hence the parameter.
 */
export const authRoutes = (services: Services, app: Koa<AppState>): Router<AppState> => {
  const router = new Router<AppState>();
  const grant = createGrantMiddleware(services.config) as RouterMiddleware<AppState>;
  const preLogin = preLoginSession(app, services.config) as RouterMiddleware<AppState>;
  const provider = requireProvider(services.config);

  router.post(`${AUTH_PREFIX}/logout`, logout(services));

  // `logout` is a known path that only takes POST; say so rather than call it an unknown provider.
  const notLogout: RouterMiddleware<AppState> = async (ctx, next) => {
    if (ctx.params.provider === 'logout') {
      throw methodNotAllowed(['POST']);
    }
    await next();
  };

  // Before the `:provider` route, which would take `providers` for an unknown provider's name.
  router.get(`${AUTH_PREFIX}/providers`, signInProviders(services.config));

  router.get(`${AUTH_PREFIX}/:provider`, notLogout, provider, startOnPublicHost(services.config), preLogin, grant, () => {
    // grant answers the start of a login with a redirect; falling through means it was misconfigured.
    throw new Error('grant did not redirect to the provider');
  });

  router.get(`${AUTH_PREFIX}/:provider/callback`, provider, preLogin, callbackFailures(services), checkCallback, grant, finishLogin(services));

  return router;
};
