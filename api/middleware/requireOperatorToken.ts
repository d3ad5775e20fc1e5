import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { operatorTokenInvalid, operatorTokenRequired } from '../../shared/errors/errors.ts';
import type { AppState } from '../AppState.ts';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Equal digests of equal length: the comparison takes the same time whatever the guess, its length included. */
const sameSecret = (given: string, expected: string): boolean => timingSafeEqual(digest(given), digest(expected));

/** The token of `Authorization: Bearer <token>`, or, with `allowBasic`, the password of HTTP Basic. */
const readOperatorToken = (authorization: string, allowBasic: boolean): string | undefined => {
  const bearer = /^Bearer (\S+)$/i.exec(authorization);
  if (bearer?.[1] !== undefined) {
    return bearer[1];
  }
  const basic = allowBasic ? /^Basic ([A-Za-z0-9+/=]+)$/i.exec(authorization) : null;
  if (basic?.[1] !== undefined) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon === -1 ? undefined : decoded.slice(colon + 1);
  }
  return undefined;
};

export interface OperatorTokenOptions {
  /** Accept HTTP Basic with the token as the password (any user name), so a browser can sign in. */
  readonly allowBasic?: boolean;
  /** The challenge sent with a 401. */
  readonly realm: string;
}

/**
 * Guards an operator interface with one shared token: 401 `authentication_required` without one, 401
 * `invalid_credentials` with a wrong one, both in the error envelope. Not the API-key scheme: operators'
 * tokens come from the environment and name no account.
 */
export const requireOperatorToken = (token: string, options: OperatorTokenOptions): Middleware<AppState> => {
  const challenge = options.allowBasic ? `Basic realm="${options.realm}", charset="UTF-8"` : `Bearer realm="${options.realm}"`;
  return async (ctx, next) => {
    const authorization = ctx.get('Authorization');
    const given = readOperatorToken(authorization, options.allowBasic === true);
    if (given === undefined || !sameSecret(given, token)) {
      // The challenge names this interface's scheme, so a browser offers its sign-in prompt for Basic;
      // the message names the operator token, since an API key or a session never opens these routes.
      throw ctx.req.headers.authorization === undefined ? operatorTokenRequired(challenge) : operatorTokenInvalid(challenge);
    }
    await next();
  };
};
