import type { Config } from '../../shared/config.ts';
import type { AppContext } from '../AppState.ts';
import { openSessionId, SESSION_COOKIE_NAME } from './sessionCookie.ts';

export type SessionCookie =
  | { readonly kind: 'absent' }
  | { readonly kind: 'invalid' }
  | { readonly kind: 'present'; readonly sessionId: string };

/** What the request's `service_session` cookie holds: nothing, garbage, or a session id we sealed. */
export const readSessionCookie = (config: Config, ctx: AppContext): SessionCookie => {
  const sealed = ctx.cookies.get(SESSION_COOKIE_NAME, { signed: false });
  if (sealed === undefined || sealed === '') {
    return { kind: 'absent' };
  }
  const sessionId = openSessionId(config, sealed);
  return sessionId === undefined ? { kind: 'invalid' } : { kind: 'present', sessionId };
};
