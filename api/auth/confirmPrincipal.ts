import type { ParameterizedContext } from 'koa';
import { authVersionKey } from '../../shared/auth/authVersion.ts';
import type { AppState, Principal } from '../AppState.ts';
import type { AuthDependencies } from './AuthDependencies.ts';
import { authenticateApiKeyCached } from './authenticateApiKey.ts';
import { requirePrincipal } from './requirePrincipal.ts';

/**
 * A principal from this process's cache (it carries `authVersion`) is only as good as the admission
 * script's check of that version. A step that answers before the admission (an idempotent replay, a
 * validation error) confirms it here (one GET, only on those paths), and reloads it from PostgreSQL,
 * which may refuse the key, if stale.
 */
export const confirmPrincipal = async <State extends AppState>(services: AuthDependencies, ctx: ParameterizedContext<State>): Promise<Principal> => {
  const principal = requirePrincipal(ctx.state);
  if (principal.authVersion === undefined) {
    return principal;
  }
  const current = await services.redis.get(authVersionKey(services.redisPrefix, principal.accountId));
  if (current === principal.authVersion) {
    return principal;
  }
  const reloaded = await authenticateApiKeyCached(services, ctx.get('Authorization'), { reload: true });
  ctx.state.principal = reloaded;
  return reloaded;
};
