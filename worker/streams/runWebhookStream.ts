import { setTimeout as delay } from 'node:timers/promises';
import { acknowledgeBatch, completeStream, endStream, findStreamById, fixInflightBatch, type StreamRow } from '../../shared/db/queries/streams.ts';
import type { StreamJobData } from '../../shared/jobs/StreamJobData.ts';
import { giveBackStreamQuota } from '../../shared/streams/giveBackStreamQuota.ts';
import type { StreamInput } from '../../shared/streams/StreamInput.ts';
import { webhookSecretCipher } from '../../shared/streams/webhookSecretCipher.ts';
import { postWebhook } from './postWebhook.ts';
import type { StreamJobContext } from './StreamJobContext.ts';

/** At most this many tries of one batch (docs/streams.md#webhooks). */
const MAX_TRIES = 10;

interface Pending {
  readonly position: number;
  readonly dueMs: number;
  readonly json: string;
}

/**
 * A webhook stream's delivery (docs/streams.md, "Webhooks"): due events in batches, in order, one batch in
 * flight. A batch is closed when it holds `batch_max` events or `batch_ms` after its first one was due,
 * and fixed in the row (number, first and last position) before its first try, so a worker that takes the
 * stream on after a loss sends that same batch again: the same Idempotency-Key and body. A 2xx answer
 * acknowledges it; otherwise it is tried again after 1 s, doubling, at most 10 tries, and later batches
 * wait; after the last try the stream is `failed` with `last_error` and what was never acknowledged given back.
 */
export const runWebhookStream = async (context: StreamJobContext, data: StreamJobData, first: StreamRow, input: StreamInput): Promise<'done' | 'stopped'> => {
  const sink = first.sink as { url: string; batch_max: number; batch_ms: number };
  const secret = webhookSecretCipher(context.sessionSecret).open(first.webhook_secret_sealed ?? '')?.toString('utf8');
  if (secret === undefined) throw new Error('the webhook secret cannot be opened');
  const createdMs = first.created_ms;
  let acknowledged = first.acknowledged;
  let batch = first.acknowledged_batch;
  let made = first.acknowledged;
  let ended = false;
  const pending: Pending[] = [];
  let lastDueMs = 0;

  // Envelopes after `made`, from the pool, as needed.
  const fill = async (upTo: number): Promise<void> => {
    while (!ended && pending.length < upTo) {
      const chunk = await context.threads.run({ streamId: first.id, input, after: made, count: 1024, withJson: true }, { name: 'runStreamChunk' });
      for (let i = 0; i < chunk.json.length; i++) {
        made += 1;
        pending.push({ position: made, dueMs: chunk.dueMs[i]!, json: chunk.json[i]! });
      }
      if (chunk.last) ended = true;
    }
  };
  const waitUntil = async (at: number): Promise<'stopped' | 'cancelled' | undefined> => {
    while (Date.now() < at) {
      if (context.stopping()) return 'stopped';
      await delay(Math.max(1, Math.min(at - Date.now(), 1000)));
      const row = Date.now() < at ? await findStreamById(context.pool, first.id) : first;
      if (row !== null && row.status !== 'running') return 'cancelled';
    }
    return undefined;
  };

  for (;;) {
    let range: { batch: number; first: number; last: number };
    const inflight = batch === first.acknowledged_batch ? first.inflight_batch : null;
    if (inflight !== null && inflight.batch === batch + 1) {
      range = inflight;
    } else {
      await fill(1);
      const head = pending[0];
      if (head === undefined) break;
      const waited = await waitUntil(createdMs + head.dueMs);
      if (waited === 'stopped') return 'stopped';
      if (waited === 'cancelled') return 'done';
      // The batch closes when full, or batch_ms after its first event was due (sooner when the stream ends).
      await fill(sink.batch_max);
      const closesAt = createdMs + head.dueMs + sink.batch_ms;
      let count = 0;
      while (count < Math.min(pending.length, sink.batch_max) && createdMs + pending[count]!.dueMs <= closesAt) count += 1;
      const lastOfStream = ended && count === pending.length;
      const sendAt = count === sink.batch_max || lastOfStream ? createdMs + pending[count - 1]!.dueMs : closesAt;
      const waitedToSend = await waitUntil(sendAt);
      if (waitedToSend === 'stopped') return 'stopped';
      if (waitedToSend === 'cancelled') return 'done';
      range = { batch: batch + 1, first: acknowledged + 1, last: acknowledged + count };
      await fixInflightBatch(context.pool, { id: first.id, ...range });
    }
    // The batch's envelopes: from the queue, or made again after a loss (the same bytes).
    await fill(range.last - acknowledged);
    const events = pending.slice(0, range.last - acknowledged);
    lastDueMs = events.at(-1)?.dueMs ?? lastDueMs;
    const body = `{"stream_id":"${first.id}","batch":${range.batch},"events":[${events.map((event) => event.json).join(',')}]}`;
    let reason = '';
    let ok = false;
    for (let attempt = 1; attempt <= MAX_TRIES && !ok; attempt++) {
      if (attempt > 1) {
        const waited = await waitUntil(Date.now() + context.retryBaseMs * 2 ** (attempt - 2));
        if (waited === 'stopped') return 'stopped';
        if (waited === 'cancelled') return 'done';
      }
      const answer = await postWebhook({ url: sink.url, body, secret, idempotencyKey: `${first.id}:${range.batch}`, allowPrivate: context.webhookAllowPrivate });
      ok = answer.ok;
      if (!answer.ok) reason = answer.reason;
    }
    if (!ok) {
      const deliveredRecords = Math.min(first.num_interactions, acknowledged);
      const endedRow = await endStream(context.pool, {
        id: first.id,
        status: 'failed',
        delivered: acknowledged,
        deliveredRecords,
        lastError: { code: 'webhook_failed', message: `Batch ${range.batch} was not acknowledged after ${MAX_TRIES} tries: ${reason}`, at: new Date().toISOString() },
      });
      if (endedRow !== null) await giveBackStreamQuota(context.redis, data.quotaKey, deliveredRecords > 0 ? 0 : 1, first.num_interactions - deliveredRecords);
      return 'done';
    }
    await acknowledgeBatch(context.pool, { id: first.id, batch: range.batch, last: range.last });
    pending.splice(0, range.last - acknowledged);
    acknowledged = range.last;
    batch = range.batch;
    if (acknowledged >= first.total_events) break;
  }
  await completeStream(context.pool, { id: first.id, finishedMs: createdMs + lastDueMs });
  return 'done';
};
