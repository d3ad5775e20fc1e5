import { touchApiKeyLastUsed } from '../../shared/db/queries/apiKeys.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import type { Services } from '../Services.ts';

const USE_RECORD_INTERVAL_SECONDS = 60;

/**
 * Records that a key authenticated a request, off the request's critical path: not awaited, failures only
 * logged. A Redis gate per key lets one request a minute through to the database, across every API
 * process; the UPDATE's own once-a-minute condition still holds should Redis be lost or restarted.
 */
export const recordApiKeyUse = (services: Services, apiKeyId: string): void => {
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
