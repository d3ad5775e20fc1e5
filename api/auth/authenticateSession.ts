import { findLiveSession } from '../../shared/db/queries/sessions.ts';
import { accountDisabled, csrfRejected, invalidCredentials } from '../../shared/errors/errors.ts';
import type { AppContext, Principal } from '../AppState.ts';
import type { AuthDependencies } from './AuthDependencies.ts';
import { isSameOrigin } from './isSameOrigin.ts';
import { readSessionCookie } from './readSessionCookie.ts';
import { serializeClearedSessionCookie } from './sessionCookie.ts';

// Methods that change nothing; every other one must prove it comes from our own origin.
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The browser-session scheme, consulted when a request carries no Authorization header. Returns the
 * principal of a live session, undefined when no session cookie was sent (the caller answers 401), or
 * throws: 401 `invalid_credentials` for a tampered, expired or logged-out session, 403 `csrf_rejected`
 * for a state-changing request from another origin, 403 `account_disabled`.
 */
export const authenticateSession = async (services: AuthDependencies, ctx: AppContext): Promise<Principal | undefined> => {
  const cookie = readSessionCookie(services.config, ctx);
  if (cookie.kind === 'absent') {
    return undefined;
  }
  const session = cookie.kind === 'present' ? await findLiveSession(services.pool, { sessionId: cookie.sessionId, now: services.now() }) : null;
  if (session === null) {
    // The browser would otherwise keep presenting a cookie that can never work again.
    ctx.append('Set-Cookie', serializeClearedSessionCookie(services.config));
    throw invalidCredentials();
  }
  if (!SAFE_METHODS.has(ctx.method) && !isSameOrigin(ctx, services.config.publicOrigin)) {
    throw csrfRejected();
  }
  if (!session.is_active) {
    throw accountDisabled();
  }
  return { accountId: session.account_id, plan: session.plan, limits: session.plan_limits, via: { kind: 'session', sessionId: session.session_id } };
};
