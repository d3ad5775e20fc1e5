import Router from '@koa/router';
import { findAccountById } from '../../../shared/db/queries/accounts.ts';
import { listAuthenticationMethods } from '../../../shared/db/queries/identities.ts';
import { invalidCredentials } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import type { Services } from '../../Services.ts';
import { presentAccount } from './presentAccount.ts';

export const accountRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();

  router.get('/v1/account', authenticate(services), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const [account, methods] = await Promise.all([
      findAccountById(services.pool, accountId),
      listAuthenticationMethods(services.pool, accountId),
    ]);
    if (account === null) {
      // Deleted between authentication and now: the credential no longer names anyone.
      throw invalidCredentials();
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = presentAccount(account, methods);
  });

  return router;
};
