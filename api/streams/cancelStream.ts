import { endStream, findStream, type StreamRow } from '../../shared/db/queries/streams.ts';
import { streamNotFound } from '../../shared/errors/errors.ts';
import { giveBackStreamQuota } from '../../shared/streams/giveBackStreamQuota.ts';
import { limitKeys } from '../limits/limitKeys.ts';
import type { StreamDependencies } from './StreamDependencies.ts';

/**
 * DELETE /v1/streams/{id}: the stream `cancelled` (idempotent: an ended stream is answered as it is),
 * charged the request and the records delivered so far, the rest of its reservation given back. For an
 * SSE stream "delivered" is what its clock made due, as the worker last recorded it.
 */
export const cancelStream = async (services: StreamDependencies, accountId: string, id: string): Promise<StreamRow> => {
  const row = await findStream(services.pool, { accountId, id });
  if (row === null) throw streamNotFound();
  if (row.status !== 'running') return row;
  const delivered = row.sink['type'] === 'webhook' ? row.acknowledged : row.delivered;
  // Records delivered: positions less the second deliveries among them, at most num_interactions.
  const deliveredRecords = Math.min(row.num_interactions, delivered);
  const ended = await endStream(services.pool, { id, status: 'cancelled', delivered, deliveredRecords, lastError: null });
  if (ended === null) return (await findStream(services.pool, { accountId, id })) ?? row;
  const period = ended.period_start.slice(0, 7);
  const keys = limitKeys(services.redisPrefix, accountId, period);
  await giveBackStreamQuota(services.redis, keys.quota, deliveredRecords > 0 ? 0 : 1, row.num_interactions - deliveredRecords);
  return ended;
};
