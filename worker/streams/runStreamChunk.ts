import { EnvelopeStream } from '../../shared/streams/EnvelopeStream.ts';
import type { StreamChunk, StreamChunkTask } from './streamChunkTask.ts';

// One thread serves many streams: each keeps its generator here between chunks, so the next chunk goes
// on where the last ended. A chunk for a position the thread does not hold (another thread made the
// previous one, or a resume after a lost worker) makes the stream again up to it: the stream is a
// function of its inputs (docs/development.md#code-conventions). Bounded: the oldest generators are let go first.
const MAX_HELD = 4096;
const held = new Map<string, EnvelopeStream & { at?: number }>();

/** Piscina thread entry: the next envelopes of a stream. */
export function runStreamChunk(task: StreamChunkTask): StreamChunk {
  let stream = held.get(task.streamId);
  held.delete(task.streamId);
  if (stream === undefined || stream.at !== task.after) {
    stream = new EnvelopeStream(task.input);
    stream.skipTo(task.after);
  }
  const dueMs = new Float64Array(task.count);
  const duplicate = new Uint8Array(task.count);
  const json: string[] = [];
  let length = 0;
  let last = false;
  // A clock needs only the due times: the envelopes are printed for a webhook alone.
  while (length < task.count) {
    if (!stream.moveNext()) {
      last = true;
      break;
    }
    dueMs[length] = stream.dueMs;
    duplicate[length] = stream.duplicate ? 1 : 0;
    if (task.withJson) json.push(stream.currentJson());
    length += 1;
  }
  stream.at = task.after + length;
  if (!last) {
    held.set(task.streamId, stream);
    if (held.size > MAX_HELD) held.delete(held.keys().next().value!);
  }
  return { dueMs: dueMs.subarray(0, length), duplicate: duplicate.subarray(0, length), json, last };
}
