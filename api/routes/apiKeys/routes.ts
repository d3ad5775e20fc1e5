import Router from '@koa/router';
import { createApiKey } from '../../../shared/auth/createApiKey.ts';
import { listApiKeys, revokeApiKey } from '../../../shared/db/queries/apiKeys.ts';
import { apiKeyNotFound, invalidCredentials } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import { jsonBody } from '../../middleware/jsonBody.ts';
import { validateBody } from '../../middleware/validate.ts';
import type { Services } from '../../Services.ts';
import { presentApiKey, presentCreatedApiKey } from './presentApiKey.ts';
import { type ApiKeyRevoked, createApiKeyBodySchema } from './schema.ts';

// Any UUID spelling PostgreSQL accepts as canonical; anything else cannot name a key, so it is a 404
// without a query (and without a database cast error).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const apiKeyRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();

  router.get('/v1/api-keys', authenticate(services), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const rows = await listApiKeys(services.pool, accountId);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = rows.map(presentApiKey);
  });

  router.post('/v1/api-keys', authenticate(services), jsonBody(), validateBody(createApiKeyBodySchema), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const created = await createApiKey(services.pool, { accountId, name: ctx.state.input.name });
    if (created === null) {
      throw invalidCredentials();
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 201;
    ctx.body = presentCreatedApiKey(created);
  });

  router.delete('/v1/api-keys/:key_id', authenticate(services), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const keyId = ctx.params.key_id ?? '';
    // Another account's key answers exactly like an unknown one, so ids cannot be probed.
    const revoked = UUID.test(keyId) ? await revokeApiKey(services.pool, { accountId, id: keyId }) : null;
    if (revoked === null) {
      throw apiKeyNotFound();
    }
    const body: ApiKeyRevoked = { status: 'revoked', id: revoked };
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  });

  return router;
};
