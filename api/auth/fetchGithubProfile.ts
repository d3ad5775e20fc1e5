import { z } from 'zod';
import type { OAuthProviderConfig } from '../../shared/config.ts';
import { fetchProfileJson } from './fetchProfileJson.ts';
import { LoginError } from './LoginError.ts';
import type { ProviderProfile } from './ProviderProfile.ts';

const githubUser = z.object({
  id: z.union([z.number().int(), z.string().min(1)]),
  login: z.string().min(1),
  name: z.string().nullish(),
});

const githubEmails = z.array(z.object({ email: z.string().min(1), primary: z.boolean(), verified: z.boolean() }));

const GITHUB_HEADERS = { Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28' };

/**
 * GitHub's `/user` names the person, but its `email` is only the public one; the primary address and
 * whether GitHub verified it come from `/user/emails` (scope `user:email`).
 */
export const fetchGithubProfile = async (provider: OAuthProviderConfig, accessToken: string): Promise<ProviderProfile> => {
  const [userJson, emailsJson] = await Promise.all([
    fetchProfileJson(`${provider.profileUrl}/user`, accessToken, GITHUB_HEADERS),
    fetchProfileJson(`${provider.profileUrl}/user/emails`, accessToken, GITHUB_HEADERS),
  ]);
  const user = githubUser.safeParse(userJson);
  const emails = githubEmails.safeParse(emailsJson);
  if (!user.success || !emails.success) {
    throw new LoginError('exchange_failed', 'unexpected GitHub profile shape');
  }
  const primary = emails.data.find((entry) => entry.primary);
  return {
    provider: 'github',
    providerUserId: String(user.data.id),
    email: primary?.email ?? null,
    emailVerified: primary?.verified ?? false,
    displayName: user.data.name?.trim() || user.data.login,
  };
};
