import { randomBytes, randomUUID } from 'node:crypto';
import { alignStartTime, endStream, insertStream, lockStreamSlots, type StreamRow } from '../../shared/db/queries/streams.ts';
import { interactionsPerRequestExceeded, monthlyInteractionQuotaExceeded, monthlyRequestQuotaExceeded, streamConcurrencyLimitExceeded, validationFailed } from '../../shared/errors/errors.ts';
import { monthlyPeriod } from '../../shared/limits/monthlyPeriod.ts';
import { countStreamEvents } from '../../shared/streams/countStreamEvents.ts';
import { resolveWebhookAddress } from '../../shared/streams/resolveWebhookAddress.ts';
import { webhookSecretCipher } from '../../shared/streams/webhookSecretCipher.ts';
import type { Principal } from '../AppState.ts';
import { rebuildLimits } from '../limits/admitSimulation.ts';
import { limitKeys } from '../limits/limitKeys.ts';
import type { StreamRequest } from '../routes/streams/schema.ts';
import type { StreamDependencies } from './StreamDependencies.ts';
import { drawSeed } from '../runs/drawSeed.ts';
import { resolveStreamRun } from './resolveStreamRun.ts';

const QUOTA_GRACE_S = 86_400;

/**
 * POST /v1/streams after validation (docs/streams.md): a model resolved to its version (404, 422), the
 * per-request maximum (403), the webhook address (422), the quota reserved in Redis (403s), then the row
 * inserted under the account's lock with its running streams counted (429), and the job enqueued. A
 * refusal after the reservation gives it back. Returns the row and, for a webhook, the secret shown this
 * once.
 */
export const createStream = async (services: StreamDependencies, principal: Principal, request: StreamRequest): Promise<{ row: StreamRow; secret: string | null }> => {
  const { run, timing } = await resolveStreamRun(services, principal.accountId, request.run);
  const { numInteractions } = run;
  if (numInteractions > principal.limits.max_interactions_per_request) {
    throw interactionsPerRequestExceeded(principal.limits.max_interactions_per_request, numInteractions);
  }
  const { sink } = request;
  if (sink.type === 'webhook') {
    const address = await resolveWebhookAddress(new URL(sink.url), services.config.webhookAllowPrivate).catch(() => undefined);
    if (address === undefined) {
      throw validationFailed([{ path: 'sink.url', message: 'The webhook URL must resolve to a public address.' }]);
    }
  }
  const now = services.now();
  const period = monthlyPeriod(now);
  const keys = limitKeys(services.redisPrefix, principal.accountId, period.key);
  const quotaTtl = Math.max(Math.ceil((period.end.getTime() - now.getTime()) / 1000) + QUOTA_GRACE_S, 60);
  const plan = principal.limits;
  const ask = () =>
    services.limitScripts.admitStream(keys, { monthlyRequests: plan.monthly_requests, monthlyInteractions: plan.monthly_interactions, interactions: numInteractions, quotaTtlS: quotaTtl });
  let { outcome, value: used } = await ask();
  if (outcome === 'quotaNotLoaded') {
    await rebuildLimits(services, { accountId: principal.accountId, period, keys, quotaTtl });
    ({ outcome, value: used } = await ask());
  }
  const resetsAt = period.end.toISOString();
  if (outcome === 'monthlyRequestsUsedUp') throw monthlyRequestQuotaExceeded(plan.monthly_requests, used, resetsAt);
  if (outcome === 'monthlyInteractionsExceeded') throw monthlyInteractionQuotaExceeded(plan.monthly_interactions, used, numInteractions, resetsAt);
  if (outcome !== 'admitted') throw new Error(`unexpected stream admission outcome ${outcome}`);

  const giveBack = () => services.redis.hincrby(keys.quota, 'requests', -1).then(() => services.redis.hincrby(keys.quota, 'interactions', -numInteractions));
  const seed = run.seed ?? drawSeed();
  // The model's version is fixed here, by digest: the stream is made again from the row alone on any
  // process (shared/streams/loadStreamInput.ts), whatever becomes of the model. Echoed as a simulation's
  // result echoes it: `preset` the model's name, `model` its version (null for a preset).
  const stored = {
    preset: run.preset,
    model: run.model === undefined ? null : { name: run.model.name, version: run.model.version, digest: run.model.digest },
    profile: run.profile,
    seed,
    num_interactions: numInteractions,
    engine_version: run.serviceVersion,
    scenario: run.scenario ?? null,
    population: timing.population,
    disorder: request.disorder,
  };
  const totalEvents = countStreamEvents({ preset: run.preset, model: run.model, profile: run.profile, seed, numInteractions, disorder: request.disorder });
  const secret = sink.type === 'webhook' ? `whsec_${randomBytes(24).toString('base64url')}` : null;
  const sealed = secret === null ? null : webhookSecretCipher(services.config.sessionSecret).seal(Buffer.from(secret, 'utf8'));
  let row: StreamRow;
  try {
    row = await services.pool.transaction(async (transaction) => {
      const slots = await lockStreamSlots(transaction, principal.accountId);
      if (slots.running >= slots.limit) throw streamConcurrencyLimitExceeded(slots.limit);
      const id = randomUUID();
      const inserted = await insertStream(transaction, {
        id,
        accountId: principal.accountId,
        apiKeyId: principal.via.kind === 'api_key' ? principal.via.apiKeyId : null,
        request: stored,
        speed: request.speed,
        // Absent: the instant of creation (the row's created_at), not the simulation's default.
        startTime: request.startTimeGiven ? timing.start_time : null,
        numInteractions: numInteractions,
        totalEvents,
        sink,
        webhookSecretSealed: sealed,
        periodStart: period.start.toISOString(),
      });
      return request.startTimeGiven ? inserted : alignStartTime(transaction, id);
    });
  } catch (error) {
    await giveBack();
    throw error;
  }
  try {
    await services.streams.add({ streamId: row.id, quotaKey: keys.quota });
  } catch (error) {
    // No worker will ever run it: ended at once, nothing delivered, everything given back.
    await endStream(services.pool, { id: row.id, status: 'failed', delivered: 0, deliveredRecords: 0, lastError: null });
    await giveBack();
    throw error;
  }
  return { row, secret };
};
