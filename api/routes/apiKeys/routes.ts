import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { changeAuthentication } from '../../../shared/auth/authVersion.ts';
import { createApiKey } from '../../../shared/auth/createApiKey.ts';
import { DEFAULT_ROLL_EXPIRES_IN_S, rollApiKey } from '../../../shared/auth/rollApiKey.ts';
import { listApiKeys, revokeApiKey } from '../../../shared/db/queries/apiKeys.ts';
import { describeError } from '../../../shared/errors/describeError.ts';
import { apiKeyNotFound, internalError, invalidCredentials } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { idempotent, type IdempotentRoute } from '../../idempotency/idempotent.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import { jsonBody } from '../../middleware/jsonBody.ts';
import { limitKeyChanges } from '../../middleware/limitKeyChanges.ts';
import { validateBody } from '../../middleware/validate.ts';
import type { Services } from '../../Services.ts';
import { presentApiKey, presentCreatedApiKey, presentReplayedApiKey } from './presentApiKey.ts';
import {
  type ApiKeyCreated,
  apiKeyReplayedSchema,
  type ApiKeyRevoked,
  type ApiKeyRolled,
  createApiKeyBodySchema,
  rollApiKeyBodySchema,
} from './schema.ts';

// Any UUID spelling PostgreSQL accepts as canonical; anything else cannot name a key, so it is a 404
// without a query (and without a database cast error).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// A replayed creation answers the created form without `key`: the raw key was shown once and is kept
// nowhere, not even in the idempotency record.
const keyCreationIdempotency: IdempotentRoute<AppState> = {
  record: (ctx: ParameterizedContext<AppState>) => presentReplayedApiKey(ctx.body as ApiKeyCreated),
  replay: (ctx, kept) => {
    const replayed = apiKeyReplayedSchema.safeParse(kept.response);
    if (!replayed.success) {
      return Promise.reject(internalError());
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.status = kept.status;
    ctx.body = replayed.data;
    return Promise.resolve();
  },
};

export const apiKeyRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();
  // The change is committed and exact without its signal (changeAuthentication): worth a line, not an error.
  const warnSignalFailure = (error: unknown): void => services.logger.warn({ error: describeError(error) }, 'could not signal an authentication change; the account reads PostgreSQL until its mark expires');

  router.get('/v1/api-keys', authenticate(services), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const rows = await listApiKeys(services.pool, accountId);
    const now = services.now();
    ctx.set('Cache-Control', 'no-store');
    ctx.body = rows.map((row) => presentApiKey(row, now));
  });

  router.post(
    '/v1/api-keys',
    authenticate(services),
    idempotent(services, keyCreationIdempotency),
    jsonBody(),
    validateBody(createApiKeyBodySchema),
    limitKeyChanges(services),
    async (ctx) => {
      const { accountId } = requirePrincipal(ctx.state);
      const created = await createApiKey(services.pool, { accountId, name: ctx.state.input.name, now: services.now() });
      if (created === null) {
        throw invalidCredentials();
      }
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 201;
      ctx.body = presentCreatedApiKey(created);
    },
  );

  router.post('/v1/api-keys/:key_id/roll', authenticate(services), jsonBody(), validateBody(rollApiKeyBodySchema), limitKeyChanges(services), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const keyId = ctx.params.key_id ?? '';
    if (!UUID.test(keyId)) {
      throw apiKeyNotFound();
    }
    // As DELETE: every API process that cached the previous key reloads it and sees its expiry (or its
    // revocation, for expires_in 0) on its next request, whatever Redis does around the commit.
    const rolled = await changeAuthentication(
      services.redis,
      services.redisPrefix,
      accountId,
      () =>
        rollApiKey(services.pool, {
          accountId,
          id: keyId,
          expiresInS: ctx.state.input?.expires_in ?? DEFAULT_ROLL_EXPIRES_IN_S,
          now: services.now(),
        }),
      warnSignalFailure,
    );
    const body: ApiKeyRolled = { ...presentCreatedApiKey(rolled), previous_key_expires_at: rolled.previousKeyExpiresAt };
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 201;
    ctx.body = body;
  });

  router.delete('/v1/api-keys/:key_id', authenticate(services), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const keyId = ctx.params.key_id ?? '';
    // Another account's key answers exactly like an unknown one, so ids cannot be probed.
    if (!UUID.test(keyId)) {
      throw apiKeyNotFound();
    }
    // Every API process that cached this key refuses it from the answer on, whatever Redis does around the commit.
    const revoked = await changeAuthentication(services.redis, services.redisPrefix, accountId, () => revokeApiKey(services.pool, { accountId, id: keyId }), warnSignalFailure);
    if (revoked === null) {
      throw apiKeyNotFound();
    }
    const body: ApiKeyRevoked = { status: 'revoked', id: revoked };
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  });

  return router;
};
