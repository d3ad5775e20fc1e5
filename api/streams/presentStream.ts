import type { StreamRow } from '../../shared/db/queries/streams.ts';
import type { Stream } from '../routes/streams/schema.ts';

/** The Stream resource of a row: the sink without its secret, the request as stored. */
export const presentStream = (row: StreamRow): Stream => ({
  id: row.id,
  status: row.status,
  created_at: row.created_at,
  finished_at: row.finished_at,
  request: row.request,
  speed: row.speed,
  start_time: row.start_time,
  num_interactions: row.num_interactions,
  delivered: row.delivered,
  sink: row.sink,
  last_error: row.last_error,
  events_url: `/v1/streams/${row.id}/events`,
});
