import type { RouterMiddleware } from '@koa/router';
import type { Config } from '../../../shared/config.ts';
import { providerNotFound, serviceUnavailable } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import { providerSchema, type Provider } from './schema.ts';

export const PROVIDER_LABELS: Record<Provider, { readonly name: string; readonly env: string }> = {
  github: { name: 'GitHub', env: 'OAUTH_GITHUB_CLIENT_ID' },
  google: { name: 'Google', env: 'OAUTH_GOOGLE_CLIENT_ID' },
};

// A missing client id is an operator's fix, not a blip: tell clients to come back much later (seconds).
const UNCONFIGURED_RETRY_AFTER_S = 3600;

/**
 * Lets only a known, configured provider reach grant: anything else is 404 `provider_not_found` (grant
 * would treat any path segment as a provider name), and a provider without a client id is a 503 that
 * says which variable to set, rather than a redirect to the provider with `client_id=undefined`.
 */
export const requireProvider =
  (config: Config): RouterMiddleware<AppState> =>
  async (ctx, next) => {
    const parsed = providerSchema.safeParse(ctx.params.provider);
    if (!parsed.success) {
      throw providerNotFound();
    }
    if (config.oauth[parsed.data].clientId === undefined) {
      const { name, env } = PROVIDER_LABELS[parsed.data];
      throw serviceUnavailable(UNCONFIGURED_RETRY_AFTER_S, `${name} sign-in is not configured on this server: set ${env}.`);
    }
    await next();
  };

/** The provider of a route behind requireProvider. */
export const routeProvider = (params: Record<string, string | undefined>): Provider => providerSchema.parse(params.provider);
