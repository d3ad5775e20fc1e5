import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ServerResponse } from 'node:http';
import { completeStream, findStream, type StreamRow } from '../../shared/db/queries/streams.ts';
import type { EnvelopeStream } from '../../shared/streams/EnvelopeStream.ts';
import type { StreamDependencies } from './StreamDependencies.ts';
import { presentStream } from './presentStream.ts';
import { SseBatch } from './SseBatch.ts';

/** A comment line at least this often (docs/streams.md#server-sent-events: at least every 15 s). */
const KEEP_ALIVE_MS = 15_000;
/** Envelopes written (as one write) between turns of the event loop, so one fast reader never starves the others. */
const TURN_EVENTS = 256;
/** How often a reader waiting on its clock looks at its stream's state (services.streamWatch reads it for all readers). */
const STATUS_CHECK_MS = 1000;

/**
 * GET /v1/streams/{id}/events (docs/streams.md, "Server-Sent Events"). The envelopes are a function of
 * the stream's inputs, so this process makes them itself from position `after` on (docs/development.md#code-conventions:
 * resuming is re-reading from a position, byte-identical) and writes each when it is due by the stream's clock
 * (created_at + (delivery time − start_time) / speed), the events due together as one write, with the
 * socket's back-pressure: a reader that does not read holds only its own generator, which waits for its
 * socket. No worker or buffer is between the reader and its bytes (the process only shares one reading of
 * its streams' states), so the loss of any process costs a reader only a reconnection.
 */
export const serveStreamEvents = async (services: StreamDependencies, res: ServerResponse, first: StreamRow, events: EnvelopeStream, after: number): Promise<void> => {
  let row = first;
  const createdMs = row.created_ms;
  let closed = false;
  res.once('close', () => {
    closed = true;
  });
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Accel-Buffering': 'no',
    'X-Content-Type-Options': 'nosniff',
  });
  res.write(': stream\n\n');
  let lastWrite = Date.now();
  // Whether the stream was cancelled or failed meanwhile, and what it delivered: read for every reader of
  // this process at once, about every second.
  const follow = services.streamWatch.follow(row.id);
  res.once('close', follow.release);
  // The last position this reader may have: all of them while running, what was delivered once ended.
  const limit = (): number => {
    const current = follow.current() ?? row;
    return current.status === 'running' || current.status === 'completed' ? row.num_interactions * 2 + 1 : current.delivered;
  };

  const write = async (text: string | Buffer): Promise<void> => {
    lastWrite = Date.now();
    if (!res.write(text)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  };
  const refresh = async (): Promise<void> => {
    row = (await findStream(services.pool, { accountId: row.account_id, id: row.id })) ?? row;
  };

  // Resuming: the positions the reader has are made again and dropped, a turn of the loop now and then.
  for (let position = 0; position < after && !closed; position += TURN_EVENTS) {
    if (!events.skipTo(Math.min(after, position + TURN_EVENTS))) break;
    await yieldToLoop();
  }
  // The events due together are printed into one batch and written at once: before waiting on the clock
  // for the next one, and every TURN_EVENTS events, each time with a turn of the loop.
  const batch = new SseBatch(events.maxEnvelopeBytes);
  const flush = async (): Promise<void> => {
    if (batch.size > 0) await write(batch.take());
  };
  let lastDueMs = 0;
  let sinceTurn = 0;
  for (;;) {
    if (closed) return;
    if (!events.moveNext() || events.position > limit()) break;
    const position = events.position;
    lastDueMs = events.dueMs;
    const dueAt = createdMs + lastDueMs;
    if (Date.now() < dueAt) {
      await flush();
      while (!closed && Date.now() < dueAt) {
        const now = Date.now();
        if (position > limit()) break;
        if (now - lastWrite >= KEEP_ALIVE_MS) await write(': keep-alive\n\n');
        const wait = Math.min(dueAt - now, KEEP_ALIVE_MS - (now - lastWrite), STATUS_CHECK_MS);
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, wait)));
      }
      if (closed || position > limit()) break;
    }
    batch.add(events);
    if (++sinceTurn >= TURN_EVENTS) {
      sinceTurn = 0;
      await flush();
      await yieldToLoop();
    }
  }
  if (closed) return;
  await flush();
  if (row.status === 'running') {
    await refresh();
    if (row.sink['type'] === 'webhook') {
      // A webhook stream is complete when its batches are acknowledged, which only its worker knows: a
      // reader that has read every event waits for the end the worker records (a reader completing it
      // would stop the deliveries still to come), with the keep-alives of any wait.
      while (!closed && row.status === 'running') {
        const now = Date.now();
        if (now - lastWrite >= KEEP_ALIVE_MS) await write(': keep-alive\n\n');
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(STATUS_CHECK_MS, KEEP_ALIVE_MS - (now - lastWrite)))));
        await refresh();
      }
      if (closed) return;
    } else if (row.status === 'running' && lastDueMs > 0 && !events.moveNext()) {
      // The last event is delivered: completing is idempotent with the worker's (same finished_at).
      await completeStream(services.pool, { id: row.id, finishedMs: createdMs + lastDueMs });
      await refresh();
    }
  }
  await write(`event: end\ndata: ${JSON.stringify(presentStream(row))}\n\n`);
  res.end();
};
