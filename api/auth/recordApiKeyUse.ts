import { touchApiKeyLastUsed } from '../../shared/db/queries/apiKeys.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import type { AuthDependencies } from './AuthDependencies.ts';

const USE_RECORD_INTERVAL_SECONDS = 60;
const USE_RECORD_INTERVAL_MS = USE_RECORD_INTERVAL_SECONDS * 1000;
// Bounds the per-process memo; past it the memo starts afresh, costing at most one extra Redis check per key.
const MEMO_LIMIT = 50_000;

// Keys this process already let through (or saw gated) within the last minute: most requests of a busy
// key then cost nothing here, not even the Redis round trip.
const recentlyChecked = new Map<string, number>();

/**
 * Records that a key authenticated a request, off the request's critical path: not awaited, failures only
 * logged. A Redis gate per key lets one request a minute through to the database, across every API
 * process; the UPDATE's own once-a-minute condition still holds should Redis be lost or restarted.
 */
export const recordApiKeyUse = (services: AuthDependencies, apiKeyId: string): void => {
  const memoKey = `${services.redisPrefix}:${apiKeyId}`;
  const now = Date.now();
  const checkedAt = recentlyChecked.get(memoKey);
  if (checkedAt !== undefined && now - checkedAt < USE_RECORD_INTERVAL_MS) {
    return;
  }
  if (recentlyChecked.size >= MEMO_LIMIT) {
    recentlyChecked.clear();
  }
  recentlyChecked.set(memoKey, now);
  const gateKey = `${services.redisPrefix}:api_key_used:${apiKeyId}`;
  services.redis
    .set(gateKey, '1', 'EX', USE_RECORD_INTERVAL_SECONDS, 'NX')
    .then(
      (opened) => opened === 'OK',
      () => true,
    )
    .then(async (write) => {
      if (write) {
        await touchApiKeyLastUsed(services.pool, apiKeyId);
      }
    })
    .catch((error: unknown) => {
      services.logger.warn({ api_key_id: apiKeyId, error: describeError(error) }, 'recording api key use failed');
    });
};
