import { z } from 'zod';
import type { OAuthProviderConfig } from '../../shared/config.ts';
import { fetchProfileJson } from './fetchProfileJson.ts';
import { LoginError } from './LoginError.ts';
import type { ProviderProfile } from './ProviderProfile.ts';

const googleUserinfo = z.object({
  sub: z.string().min(1),
  email: z.string().min(1).nullish(),
  // OIDC says boolean; some Google endpoints have sent the string "true".
  email_verified: z.union([z.boolean(), z.enum(['true', 'false'])]).nullish(),
  name: z.string().nullish(),
});

/** Google's OIDC userinfo: `sub` is the stable id, `email_verified` whether Google vouches for the address. */
export const fetchGoogleProfile = async (provider: OAuthProviderConfig, accessToken: string): Promise<ProviderProfile> => {
  const parsed = googleUserinfo.safeParse(await fetchProfileJson(provider.profileUrl, accessToken));
  if (!parsed.success) {
    throw new LoginError('exchange_failed', 'unexpected Google userinfo shape');
  }
  const { sub, email, email_verified: verified, name } = parsed.data;
  return {
    provider: 'google',
    providerUserId: sub,
    email: email ?? null,
    emailVerified: email !== null && email !== undefined && (verified === true || verified === 'true'),
    displayName: name?.trim() || email?.split('@')[0] || sub,
  };
};
