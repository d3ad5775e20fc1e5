import type { RouterMiddleware } from '@koa/router';
import { findLiveSession, invalidateSession } from '../../../shared/db/queries/sessions.ts';
import { csrfRejected } from '../../../shared/errors/errors.ts';
import { isSameOrigin } from '../../auth/isSameOrigin.ts';
import { readSessionCookie } from '../../auth/readSessionCookie.ts';
import { serializeClearedSessionCookie } from '../../auth/sessionCookie.ts';
import type { AppState } from '../../AppState.ts';
import type { Services } from '../../Services.ts';
import type { LogoutResponse } from './schema.ts';

/**
 * Endpoint 13: invalidates the session and clears its cookie. Without a live session there is nothing to
 * end, and it still answers 200 (the browser's goal, being signed out, holds). A live session is only
 * ended from our own origin, like every other cookie-authenticated POST.
 */
export const logout =
  (services: Services): RouterMiddleware<AppState> =>
  async (ctx) => {
    const { config } = services;
    const cookie = readSessionCookie(config, ctx);
    if (cookie.kind === 'present') {
      const now = services.now();
      const session = await findLiveSession(services.pool, { sessionId: cookie.sessionId, now });
      if (session !== null) {
        if (!isSameOrigin(ctx, config.publicOrigin)) {
          throw csrfRejected();
        }
        await invalidateSession(services.pool, { sessionId: cookie.sessionId, now });
      }
    }
    ctx.append('Set-Cookie', serializeClearedSessionCookie(config));
    ctx.set('Cache-Control', 'no-store');
    const body: LogoutResponse = { status: 'logged_out' };
    ctx.body = body;
  };
