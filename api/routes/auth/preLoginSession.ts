import type Koa from 'koa';
import type { Middleware } from 'koa';
import createSession, { type CreateSessionOptions } from 'koa-session';
import type { Config } from '../../../shared/config.ts';
import { createCookieCipher } from '../../../shared/auth/cookieCipher.ts';
import type { AppState } from '../../AppState.ts';
import { AUTH_PREFIX } from './createGrantMiddleware.ts';

const PRE_LOGIN_COOKIE_NAME = 'service_oauth';
// Long enough to sign in at the provider, short enough that a stale state is soon useless. Milliseconds.
const PRE_LOGIN_MAX_AGE_MS = 10 * 60 * 1000;

/**
 * The short-lived pre-login session grant keeps its state, PKCE verifier and nonce in. koa-session stores
 * it in a cookie, which we seal with AES-256-GCM (instead of signing it with app.keys): the verifier stays
 * secret and any tampering makes it no session. Scoped to /v1/auth by cookie path and by being mounted
 * only on the login routes.
 */
export const preLoginSession = (app: Koa<AppState>, config: Config): Middleware<AppState> => {
  const cipher = createCookieCipher(config.sessionSecret, `${PRE_LOGIN_COOKIE_NAME} v1`);
  const session = createSession(
    {
      key: PRE_LOGIN_COOKIE_NAME,
      maxAge: PRE_LOGIN_MAX_AGE_MS,
      httpOnly: true,
      // Lax, not Strict: the provider's redirect back is a cross-site top-level navigation.
      sameSite: 'lax',
      signed: false,
      secure: config.isProduction,
      path: AUTH_PREFIX,
      encode: (data: unknown) => cipher.seal(Buffer.from(JSON.stringify(data), 'utf8')),
      decode: (sealed: string) => {
        const plaintext = cipher.open(sealed);
        if (plaintext === undefined) {
          // koa-session treats a SyntaxError as "no session" and starts afresh.
          throw new SyntaxError('pre-login cookie rejected');
        }
        return JSON.parse(plaintext.toString('utf8')) as Record<string, unknown>;
      },
    } as CreateSessionOptions,
    app,
  );
  return async (ctx, next) => {
    if (config.isProduction) {
      // TLS ends at the proxy in production; without this the cookies module refuses Secure cookies.
      ctx.cookies.secure = true;
    }
    await session(ctx, next);
  };
};

interface WithPreLoginSession {
  session: { grant?: { readonly provider?: unknown; readonly state?: unknown } } | null;
}

/** What grant recorded when this browser started its login, if anything. */
export const pendingLogin = (ctx: object): { readonly provider?: unknown; readonly state?: unknown } | undefined =>
  (ctx as WithPreLoginSession).session?.grant;

/** Ends the pre-login session; koa-session then expires its cookie. */
export const dropPreLoginSession = (ctx: object): void => {
  (ctx as WithPreLoginSession).session = null;
};
