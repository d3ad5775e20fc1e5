import { digestApiKey } from '../../shared/auth/digestApiKey.ts';
import { API_KEY_PATTERN } from '../../shared/auth/generateApiKey.ts';
import { findApiKeyCredential } from '../../shared/db/queries/apiKeys.ts';
import { accountDisabled, invalidCredentials } from '../../shared/errors/errors.ts';
import type { Principal } from '../AppState.ts';
import type { Services } from '../Services.ts';
import { recordApiKeyUse } from './recordApiKeyUse.ts';

// RFC 9110: the scheme is case-insensitive; the credential is one token.
const BEARER = /^Bearer +(\S+) *$/i;

/**
 * The API-key scheme for a request that sent an Authorization header. No cache: one indexed query per
 * request is what makes a revocation effective on the very next request on every process.
 */
export const authenticateApiKey = async (services: Services, authorization: string): Promise<Principal> => {
  const key = BEARER.exec(authorization)?.[1];
  // Anything not shaped like a key is refused without a database round trip.
  if (key === undefined || !API_KEY_PATTERN.test(key)) {
    throw invalidCredentials();
  }
  const credential = await findApiKeyCredential(services.pool, digestApiKey(key));
  if (credential === null || credential.revoked_at !== null) {
    throw invalidCredentials();
  }
  if (!credential.account_is_active) {
    throw accountDisabled();
  }
  recordApiKeyUse(services, credential.api_key_id);
  return { accountId: credential.account_id, plan: credential.plan, limits: credential.plan_limits, via: { kind: 'api_key', apiKeyId: credential.api_key_id } };
};
