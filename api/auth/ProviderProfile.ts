import type { IdentityProvider } from '../../shared/db/queries/identityLogin.ts';

/** Who the identity provider says signed in, reduced to what login needs. */
export interface ProviderProfile {
  readonly provider: IdentityProvider;
  /** The provider's stable user id (GitHub numeric id, Google `sub`); never the e-mail. */
  readonly providerUserId: string;
  readonly email: string | null;
  readonly emailVerified: boolean;
  readonly displayName: string;
}
