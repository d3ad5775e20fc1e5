import { readAuthVersion } from '../../shared/auth/authVersion.ts';
import { isApiKeyExpired } from '../../shared/auth/isApiKeyExpired.ts';
import { digestApiKey } from '../../shared/auth/digestApiKey.ts';
import { API_KEY_PATTERN } from '../../shared/auth/generateApiKey.ts';
import { type ApiKeyCredential, findApiKeyCredential } from '../../shared/db/queries/apiKeys.ts';
import { accountDisabled, invalidCredentials } from '../../shared/errors/errors.ts';
import type { Principal } from '../AppState.ts';
import type { AuthDependencies } from './AuthDependencies.ts';
import type { CachedPrincipal } from './createPrincipalCache.ts';
import { recordApiKeyUse } from './recordApiKeyUse.ts';

// RFC 9110: the scheme is case-insensitive; the credential is one token after exactly one space (docs/api.md "Authentication").
const BEARER = /^Bearer (\S+)$/i;
const HOW = 'send Authorization: Bearer <API key>, the key being bs_live_ followed by 32 letters and digits.';

/**
 * Why a header is not `Bearer <key>`, in words a developer can act on: a missing scheme or another one is
 * not a revoked key. Still 401 `invalid_credentials`; the header's value is never echoed (it may be a key).
 */
const malformation = (authorization: string): string => {
  const trimmed = authorization.trim();
  if (trimmed === '') {
    return `The Authorization header is empty: ${HOW}`;
  }
  if (trimmed.startsWith('bs_')) {
    return `The Authorization header lacks its scheme: ${HOW}`;
  }
  if (!/^bearer\b/i.test(trimmed)) {
    return `The Authorization scheme must be Bearer (API keys are the only credential this header carries): ${HOW}`;
  }
  if (/^bearer$/i.test(trimmed)) {
    return `Bearer is not followed by a key: ${HOW}`;
  }
  if (!/^bearer \S/i.test(authorization)) {
    return `Bearer must be followed by exactly one space, then the key: ${HOW}`;
  }
  return `The API key is malformed: ${HOW}`;
};

const parseKey = (authorization: string): string => {
  const key = BEARER.exec(authorization)?.[1];
  // Anything not shaped like a key is refused without a database round trip.
  if (key === undefined || !API_KEY_PATTERN.test(key)) {
    throw invalidCredentials(malformation(authorization));
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
export const authenticateApiKey = async (services: AuthDependencies, authorization: string): Promise<Principal> => {
  const principal = toPrincipal(await findApiKeyCredential(services.pool, digestApiKey(parseKey(authorization))), services.now().getTime());
  recordApiKeyUse(services, principal.via.apiKeyId);
  return principal;
};

/**
 * Loads a key's principal and caches it under the account's current credential version. The version is
 * read before the credential (so a change marked after the read replaces the version, and this entry is
 * not trusted past it); the account is known only from a first read, hence two reads on a miss. While a
 * change of the account is pending (shared/auth/authVersion.ts) nothing is cached: the principal read
 * here answers this request alone, without a version to confirm, and the next request reads again.
 */
const loadPrincipal = async (services: AuthDependencies, digest: Buffer, cacheKey: string): Promise<{ readonly principal: Principal; readonly expiresAt: number | null }> => {
  const cache = services.principals;
  cache.delete(cacheKey);
  const { accountId } = toPrincipal(await findApiKeyCredential(services.pool, digest), services.now().getTime());
  const authVersion = await readAuthVersion(services.redis, services.redisPrefix, accountId);
  const credential = await findApiKeyCredential(services.pool, digest);
  const principal = toPrincipal(credential, services.now().getTime());
  // A rolled key's grace period, judged per request (the cache holds the key until then).
  const expiresAt = credential === null ? null : expiryOf(credential);
  if (authVersion === undefined) {
    return { principal, expiresAt };
  }
  const entry: CachedPrincipal = { principal: { ...principal, authVersion }, expiresAt };
  cache.set(cacheKey, entry);
  return entry;
};

/**
 * The API-key scheme of the hot path: no PostgreSQL read for a key this process already knows. The
 * principal it returns carries `authVersion`, and is only as good as the admission script's check of it
 * against Redis (done before anything is counted); on a mismatch the caller asks again with `reload`.
 */
export const authenticateApiKeyCached = async (services: AuthDependencies, authorization: string, options: { reload?: boolean } = {}): Promise<Principal> => {
  const digest = digestApiKey(parseKey(authorization));
  const cacheKey = digest.toString('base64');
  let entry: { readonly principal: Principal; readonly expiresAt: number | null } | undefined = options.reload ? undefined : services.principals.get(cacheKey);
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
