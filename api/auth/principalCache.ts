import type { Principal } from '../AppState.ts';
import type { Services } from '../Services.ts';

/** A principal as this process last loaded it from PostgreSQL. */
export interface CachedPrincipal {
  /** Carries the credential version it was loaded under (Principal.authVersion). */
  readonly principal: Principal & { readonly authVersion: string };
  /** Epoch ms after which the key fails like a revoked one, judged per request; null = never. */
  readonly expiresAt: number | null;
}

// Bounds the memory of a process that sees very many keys; past it the cache starts afresh, which costs
// one reload per key and is never wrong.
const CACHE_LIMIT = 10_000;

const caches = new WeakMap<Services, Map<string, CachedPrincipal>>();

/**
 * The principals of API keys this process authenticated, keyed by the key's digest (never the key). An
 * entry is trusted only together with a check of its version in Redis, which the admission script makes.
 */
export const principalCache = (services: Services) => {
  let cache = caches.get(services);
  if (cache === undefined) {
    cache = new Map();
    caches.set(services, cache);
  }
  const entries = cache;
  return {
    get: (digest: string): CachedPrincipal | undefined => entries.get(digest),
    set: (digest: string, entry: CachedPrincipal): void => {
      if (entries.size >= CACHE_LIMIT) {
        entries.clear();
      }
      entries.set(digest, entry);
    },
    delete: (digest: string): void => {
      entries.delete(digest);
    },
  };
};
