import { readAuthVersion } from '../../shared/auth/authVersion.ts';
import { isApiKeyExpired } from '../../shared/auth/isApiKeyExpired.ts';
import { digestApiKey } from '../../shared/auth/digestApiKey.ts';
import { API_KEY_PATTERN } from '../../shared/auth/generateApiKey.ts';
import { type ApiKeyCredential, findApiKeyCredential } from '../../shared/db/queries/apiKeys.ts';
import { accountDisabled, invalidCredentials } from '../../shared/errors/errors.ts';
import type { Principal } from '../AppState.ts';
import type { Services } from '../Services.ts';
import { type CachedPrincipal, principalCache } from './principalCache.ts';
import { recordApiKeyUse } from './recordApiKeyUse.ts';

// RFC 9110: the scheme is case-insensitive; the credential is one token after exactly one space (README).
const BEARER = /^Bearer (\S+)$/i;

const parseKey = (authorization: string): string => {
  const key = BEARER.exec(authorization)?.[1];
  // Anything not shaped like a key is refused without a database round trip.
  if (key === undefined || !API_KEY_PATTERN.test(key)) {
    throw invalidCredentials();
  }
  return key;
};

/** A credential's expires_at as epoch ms (null: never expires). */
const expiryOf = (credential: ApiKeyCredential): number | null => (credential.expires_at === null ? null : Date.parse(credential.expires_at));

/**
 * The credential as a principal, or the refusal it earns: a revoked or expired key (a rolled key past its
 * grace period fails like a revoked one) before a disabled account. `now` is epoch ms.
 */
type ApiKeyPrincipal = Principal & { readonly via: { readonly kind: 'api_key'; readonly apiKeyId: string } };

const toPrincipal = (credential: ApiKeyCredential | null, now: number): ApiKeyPrincipal => {
  if (credential === null || credential.revoked_at !== null || isApiKeyExpired(expiryOf(credential), now)) {
    throw invalidCredentials();
  }
  if (!credential.account_is_active) {
    throw accountDisabled();
  }
  return { accountId: credential.account_id, plan: credential.plan, limits: credential.plan_limits, via: { kind: 'api_key', apiKeyId: credential.api_key_id } };
};

/**
 * The API-key scheme read from PostgreSQL on every request: exact by construction. Routes other than
 * POST /v1/simulations use it; each of them reads PostgreSQL for its answer anyway.
 */
export const authenticateApiKey = async (services: Services, authorization: string): Promise<Principal> => {
  const principal = toPrincipal(await findApiKeyCredential(services.pool, digestApiKey(parseKey(authorization))), services.now().getTime());
  recordApiKeyUse(services, principal.via.apiKeyId);
  return principal;
};

/**
 * Loads a key's principal and caches it under the account's current credential version. The version is
 * read before the credential (so a change committed after the read publishes a newer version, and this
 * entry is not trusted past it); the account is known only from a first read, hence two reads on a miss.
 */
const loadPrincipal = async (services: Services, digest: Buffer, cacheKey: string): Promise<CachedPrincipal> => {
  const cache = principalCache(services);
  cache.delete(cacheKey);
  const { accountId } = toPrincipal(await findApiKeyCredential(services.pool, digest), services.now().getTime());
  const authVersion = await readAuthVersion(services.redis, services.redisPrefix, accountId);
  const credential = await findApiKeyCredential(services.pool, digest);
  const entry: CachedPrincipal = {
    principal: { ...toPrincipal(credential, services.now().getTime()), authVersion },
    // A rolled key's grace period, judged per request (the cache holds the key until then).
    expiresAt: credential === null ? null : expiryOf(credential),
  };
  cache.set(cacheKey, entry);
  return entry;
};

/**
 * The API-key scheme of the hot path: no PostgreSQL read for a key this process already knows. The
 * principal it returns carries `authVersion`, and is only as good as the admission script's check of it
 * against Redis (done before anything is counted); on a mismatch the caller asks again with `reload`.
 */
export const authenticateApiKeyCached = async (services: Services, authorization: string, options: { reload?: boolean } = {}): Promise<Principal> => {
  const digest = digestApiKey(parseKey(authorization));
  const cacheKey = digest.toString('base64');
  let entry = options.reload ? undefined : principalCache(services).get(cacheKey);
  entry ??= await loadPrincipal(services, digest, cacheKey);
  if (isApiKeyExpired(entry.expiresAt, services.now().getTime())) {
    throw invalidCredentials();
  }
  const { principal } = entry;
  if (principal.via.kind === 'api_key') {
    recordApiKeyUse(services, principal.via.apiKeyId);
  }
  return principal;
};
