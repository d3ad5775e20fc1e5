import { createRequire } from 'node:module';
import type grantKoa from 'grant-koa';
import type { Middleware } from 'koa';
import type { Config } from '../../../shared/config.ts';
import type { AppState } from '../../AppState.ts';

export const AUTH_PREFIX = '/v1/auth';

// grant-koa is CommonJS whose typings declare an ES default export; require() gives the function itself.
const grant = createRequire(import.meta.url)('grant-koa') as typeof grantKoa.default;

/**
 * grant performs the OAuth 2.0 dance: the authorize redirect with a fresh state (and PKCE S256 challenge,
 * plus an OIDC nonce for Google), then, on the callback, the state check and the code exchange. Its
 * result lands in ctx.state.grant.response (transport "state"); profiles are fetched by us, because
 * GitHub needs two calls and both need validating.
 *
 * PKCE is on for both providers: Google has always taken it, and GitHub accepts S256 since 2025.
 */
export const createGrantMiddleware = (config: Config): Middleware<AppState> => {
  const { github, google } = config.oauth;
  return grant({
    config: {
      defaults: {
        origin: config.publicUrl,
        prefix: AUTH_PREFIX,
        transport: 'state',
        state: true,
        response: ['tokens'],
      },
      github: {
        key: github.clientId,
        secret: github.clientSecret,
        authorize_url: github.authorizeUrl,
        access_url: github.tokenUrl,
        scope: ['read:user', 'user:email'],
        scope_delimiter: ' ',
        pkce: true,
      },
      google: {
        key: google.clientId,
        secret: google.clientSecret,
        authorize_url: google.authorizeUrl,
        access_url: google.tokenUrl,
        scope: ['openid', 'email', 'profile'],
        scope_delimiter: ' ',
        pkce: true,
        nonce: true,
      },
    },
    // Token exchange deadline, in milliseconds: a stalled provider must not hold the callback forever.
    request: { timeout: 10_000 },
  }) as Middleware<AppState>;
};
