import type { DatabasePool } from 'slonik';
import { lockAccountEmail } from '../../shared/db/queries/accounts.ts';
import {
  findAccountByIdentity,
  findAccountByVerifiedEmail,
  findUnclaimedAccountByEmail,
  insertIdentity,
  insertLoginAccount,
  lockLoginKey,
  updateIdentityEmail,
} from '../../shared/db/queries/identityLogin.ts';
import { deleteEndedSessions, invalidateSession } from '../../shared/db/queries/sessions.ts';
import { LoginError } from './LoginError.ts';
import type { ProviderProfile } from './ProviderProfile.ts';
import { startSession } from './startSession.ts';

export interface CompletedLogin {
  readonly accountId: string;
  readonly sessionId: string;
  /** Whether this login created the account. */
  readonly created: boolean;
}

/**
 * Signs an identity in: its own account when it has one; else, only when the provider reports the address
 * verified, the account of another provider's identity with the same verified address (linking), or an
 * account the operator made for that address that nobody has signed in to yet (claiming); else a new
 * account. An unverified address joins nothing, so it can take over no account. Then a new session,
 * replacing the one the browser held, if any; all in one transaction, so a failure leaves no half-made account.
 */
export const completeLogin = async (
  pool: DatabasePool,
  profile: ProviderProfile,
  options: { readonly now: Date; readonly replacesSessionId?: string | undefined },
): Promise<CompletedLogin> => {
  const { now } = options;
  const { email } = profile;
  if (email === null) {
    throw new LoginError('email_unavailable', 'the provider reported no e-mail address');
  }
  return pool.transaction(async (transaction) => {
    await lockLoginKey(transaction, `identity:${profile.provider}:${profile.providerUserId}`);
    if (profile.emailVerified) {
      await lockLoginKey(transaction, `email:${email.toLowerCase()}`);
      // The lock admin create-account takes too: an account made for this address at the same moment is
      // either committed before this looks for it, or sees this login's account and refuses the address.
      await lockAccountEmail(transaction, email);
    }
    const identity = { provider: profile.provider, providerUserId: profile.providerUserId, email, emailVerified: profile.emailVerified };
    let account = await findAccountByIdentity(transaction, identity);
    let created = false;
    if (account === null) {
      if (profile.emailVerified) {
        account = (await findAccountByVerifiedEmail(transaction, { email, exceptProvider: profile.provider })) ?? (await findUnclaimedAccountByEmail(transaction, email));
      }
      if (account === null) {
        account = await insertLoginAccount(transaction, { email, displayName: profile.displayName });
        created = true;
      }
      await insertIdentity(transaction, { ...identity, accountId: account.account_id });
    } else {
      await updateIdentityEmail(transaction, identity);
    }
    if (!account.is_active) {
      throw new LoginError('account_disabled', 'the account is disabled');
    }
    await deleteEndedSessions(transaction, { accountId: account.account_id, now });
    const sessionId = await startSession(transaction, account.account_id, now);
    // Signing in again from a browser that holds a session ends the old one: one browser, one session.
    if (options.replacesSessionId !== undefined) {
      await invalidateSession(transaction, { sessionId: options.replacesSessionId, now });
    }
    return { accountId: account.account_id, sessionId, created };
  });
};
