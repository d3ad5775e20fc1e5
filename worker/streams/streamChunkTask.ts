import type { StreamInput } from '../../shared/streams/StreamInput.ts';

/** A pool task: the envelopes of one stream after `after`, at most `count` of them. */
export interface StreamChunkTask {
  readonly streamId: string;
  readonly input: StreamInput;
  readonly after: number;
  readonly count: number;
  /** Whether the envelopes' JSON is wanted (a webhook) or only their due times (an SSE stream's clock). */
  readonly withJson: boolean;
}

export interface StreamChunk {
  /** Due offsets (ms after created_at) of positions after+1 … after+length. */
  readonly dueMs: Float64Array;
  /** 1 where the position is a second delivery. */
  readonly duplicate: Uint8Array;
  readonly json: readonly string[];
  /** Whether the last position of the stream is in this chunk. */
  readonly last: boolean;
}
