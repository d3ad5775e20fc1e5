import type { Principal } from '../AppState.ts';

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

export interface PrincipalCache {
  readonly get: (digest: string) => CachedPrincipal | undefined;
  readonly set: (digest: string, entry: CachedPrincipal) => void;
  readonly delete: (digest: string) => void;
}

/**
 * The principals of API keys this process authenticated, keyed by the key's digest (never the key); one
 * per process (api/createServices.ts). An entry is trusted only together with a check of its version in
 * Redis, which the admission script makes.
 */
export const createPrincipalCache = (): PrincipalCache => {
  const entries = new Map<string, CachedPrincipal>();
  return {
    get: (digest) => entries.get(digest),
    set: (digest, entry) => {
      if (entries.size >= CACHE_LIMIT) {
        entries.clear();
      }
      entries.set(digest, entry);
    },
    delete: (digest) => {
      entries.delete(digest);
    },
  };
};
