import type { RouterMiddleware } from '@koa/router';
import type { Config } from '../../../shared/config.ts';
import type { AppState } from '../../AppState.ts';
import { PROVIDER_LABELS } from './requireProvider.ts';
import { providerSchema, type SignInProvidersResponse } from './schema.ts';

const LOCAL_SIGN_IN_UNCONFIGURED =
  'No identity provider is configured here. To sign in on this machine, run `npm run dev:idp` in the repository and start the service again with the OAUTH_ variables it prints.';
const LOCAL_SIGN_IN_CONFIGURED =
  'Developing on this machine? `npm run dev:idp` starts a local identity provider that stands in for GitHub and Google; start the service with the OAUTH_ variables it prints.';

/**
 * The sign-in choices of this server, for the landing page: only providers with a client id (the others
 * would answer 503), and in development how to sign in without a real provider. Public; no secret in it.
 */
export const signInProviders =
  (config: Config): RouterMiddleware<AppState> =>
  (ctx) => {
    const providers = providerSchema.options
      .filter((name) => config.oauth[name].clientId !== undefined)
      .map((name) => ({ name, label: PROVIDER_LABELS[name].name, url: `/v1/auth/${name}` }));
    const body: SignInProvidersResponse = {
      providers,
      local_sign_in: config.nodeEnv !== 'development' ? null : providers.length === 0 ? LOCAL_SIGN_IN_UNCONFIGURED : LOCAL_SIGN_IN_CONFIGURED,
    };
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = body;
  };
