/**
 * Whether a rolled key's grace period is over (docs/api.md#api-keys): from its expires_at on it
 * fails like a revoked key. Pure, with times as epoch milliseconds, so a cached credential can be judged
 * locally on every request and tests can move the clock.
 */
export const isApiKeyExpired = (expiresAt: number | null, now: number): boolean => expiresAt !== null && now >= expiresAt;
