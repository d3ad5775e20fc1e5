import { byteChunk, putChunk } from '../../shared/engine/byteChunk.ts';
import { writeInteger } from '../../shared/engine/writeInteger.ts';
import type { EnvelopeStream } from '../../shared/streams/EnvelopeStream.ts';

const ID = byteChunk('id: ');
const DATA = byteChunk('\ndata: ');
const END = byteChunk('\n\n');
/** Bytes of a message besides its envelope: the text above, a position of up to 17 characters, the writers' 4-byte overshoot. */
const MESSAGE_BYTES = 4 + 17 + 7 + 2 + 4;
/** Room for this many messages at first; it doubles when a burst needs more, so a slow stream stays small. */
const FIRST_MESSAGES = 4;

/**
 * SSE messages (`id: <position>\ndata: <envelope>\n\n`, docs/streams.md) of the events due together,
 * printed with the engine's byte writers into one buffer of the reader's and handed to the socket as one
 * write: no string or object per event, and one chunk of the response per batch rather than per event.
 */
export class SseBatch {
  private readonly messageBytes: number;
  private buffer: Buffer;
  private view: DataView;
  private pos = 0;

  constructor(maxEnvelopeBytes: number) {
    this.messageBytes = MESSAGE_BYTES + maxEnvelopeBytes;
    this.buffer = Buffer.allocUnsafe(this.messageBytes * FIRST_MESSAGES);
    this.view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.length);
  }

  /** Bytes printed and not yet taken. */
  get size(): number {
    return this.pos;
  }

  /** Prints the stream's current envelope as a message. */
  add(events: EnvelopeStream): void {
    if (this.pos + this.messageBytes > this.buffer.length) this.grow();
    const view = this.view;
    let pos = writeInteger(view, putChunk(view, this.pos, ID), events.position);
    pos = events.writeEnvelope(view, putChunk(view, pos, DATA));
    this.pos = putChunk(view, pos, END);
  }

  /** The messages printed since the last take, as a buffer of their own (the socket may hold it a while). */
  take(): Buffer {
    const taken = Buffer.from(this.buffer.subarray(0, this.pos));
    this.pos = 0;
    return taken;
  }

  private grow(): void {
    const buffer = Buffer.allocUnsafe(this.buffer.length * 2);
    this.buffer.copy(buffer, 0, 0, this.pos);
    this.buffer = buffer;
    this.view = new DataView(buffer.buffer, buffer.byteOffset, buffer.length);
  }
}
