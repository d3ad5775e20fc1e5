import type { Job } from 'bullmq';
import { completeStream, endStream, findStreamById } from '../../shared/db/queries/streams.ts';
import type { StreamJobData } from '../../shared/jobs/StreamJobData.ts';
import { giveBackStreamQuota } from '../../shared/streams/giveBackStreamQuota.ts';
import { loadStreamInput } from '../../shared/streams/loadStreamInput.ts';
import type { StreamJobContext } from './StreamJobContext.ts';
import { runWebhookStream } from './runWebhookStream.ts';

/** Positions a pool task makes at once: generating ahead, never a thread per stream. */
const CHUNK = 2048;
/** How often the clock wakes to report how far its events are due and to look for a cancellation (context.progress records them). */
const RECORD_EVERY_MS = 2000;

/**
 * One stream's clock on a worker (docs/streams.md): its events' due times come from the pool chunk by
 * chunk, the job waits on them and reports how far they are due (`delivered`, recorded with every other
 * clock's by context.progress every 2 s, which also tells it of a cancellation), and completes the stream
 * when the last one is due (finished_at: that instant, so whichever of the job
 * and an SSE reader completes it writes the same row). A worker lost mid-stream loses nothing: BullMQ
 * gives the job to another worker, which reads the row and goes on from the clock, which never stopped.
 */
export const runStreamJob = async (context: StreamJobContext, job: Job<StreamJobData>): Promise<'done' | 'stopped'> => {
  const row = await findStreamById(context.pool, job.data.streamId);
  if (row === null || row.status !== 'running') return 'done';
  const input = await loadStreamInput(context.pool, row);
  if (row.sink['type'] === 'webhook') return runWebhookStream(context, job.data, row, input);
  const createdMs = row.created_ms;
  let position = row.delivered;
  let lastDueMs = 0;
  const progress = context.progress.follow(row.id, position);
  try {
    for (;;) {
      const chunk = await context.threads.run({ streamId: row.id, input, after: position, count: CHUNK, withJson: false }, { name: 'runStreamChunk' });
      for (let i = 0; i < chunk.dueMs.length; i++) {
        const dueAt = createdMs + chunk.dueMs[i]!;
        lastDueMs = chunk.dueMs[i]!;
        if (Date.now() < dueAt) {
          progress.report(position);
          while (Date.now() < dueAt) {
            if (context.stopping()) return 'stopped';
            if (!progress.running()) return 'done';
            await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(dueAt - Date.now(), RECORD_EVERY_MS))));
          }
        }
        position += 1;
      }
      if (chunk.last) break;
    }
  } finally {
    progress.release();
  }
  await completeStream(context.pool, { id: row.id, finishedMs: createdMs + lastDueMs });
  return 'done';
};

/** A stream the service could not run: ended `failed`, its whole reservation less what was delivered given back. */
export const failStream = async (context: StreamJobContext, data: StreamJobData, message: string): Promise<void> => {
  const row = await findStreamById(context.pool, data.streamId);
  if (row === null || row.status !== 'running') return;
  const deliveredRecords = Math.min(row.num_interactions, row.delivered);
  const ended = await endStream(context.pool, {
    id: row.id,
    status: 'failed',
    delivered: row.delivered,
    deliveredRecords,
    lastError: { code: 'stream_failed', message, at: new Date().toISOString() },
  });
  if (ended !== null) await giveBackStreamQuota(context.redis, data.quotaKey, deliveredRecords > 0 ? 0 : 1, row.num_interactions - deliveredRecords);
};
