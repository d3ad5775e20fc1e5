import http2 from 'node:http2';
import { dataPlaneProtocol } from '../../shared/jobs/dataPlaneProtocol.ts';

const { headers: HEADERS, frameHeaderBytes } = dataPlaneProtocol;

/** What the worker stated at the end of a run (the trailers), with the run's last bytes. */
interface RunEnd {
  readonly outcome: 'completed' | 'failed';
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly computeMs: number;
  /** The last frame, held back until the run is settled: the whole body of a run that fit one frame. */
  readonly last: Buffer;
  /** Records the run made through its last frame. */
  readonly records: number;
}

export interface RunReplyHandlers {
  /** Hands bytes to the client; resolves when the next may come (the wait reaches the worker as window). */
  readonly write: (bytes: Buffer) => Promise<void>;
  readonly onEnd: (end: RunEnd) => void;
  /** `write` failed (the client left or stopped reading): the run ends here, its worker told to stop. */
  readonly onWriteFailed: (error: unknown) => void;
}

export interface RunReply {
  /** A verified stream of the worker that holds the run: it takes over from any earlier one. */
  readonly attach: (stream: http2.ServerHttp2Stream) => void;
  /**
   * The run is over on this side: its stream is reset, so its worker stops it. `ended` (NO_ERROR): its
   * client left, stopped reading or held it to the deadline, or the wait failed; the job is done.
   * `timed_out` (CANCEL): the deadline came with the service behind; the job fails. The worker takes the
   * word of this process, which saw the client (docs/fair-use.md#whose-deadline).
   */
  readonly stop: (reason: 'ended' | 'timed_out') => void;
  /** Bytes handed to the client: where a resumed run starts. */
  readonly delivered: () => number;
  /** Records made through the bytes handed to the client. */
  readonly records: () => number;
}

/**
 * One run's reply, as a small state machine: waiting for its worker's stream, streaming, interrupted (the
 * link or the worker was lost: a worker that takes the run over attaches a new stream, which is told
 * where the client's body stands), ended. Frames are handed to the client one after another, each only
 * when the previous was taken; the last is held until the trailers say how the run ended. `totalRecords`
 * (the run's interactions) tells which frames cannot be the last: those the frame header says end short
 * of the run's records.
 */
export const createRunReply = (handlers: RunReplyHandlers, totalRecords: number): RunReply => {
  let current: http2.ServerHttp2Stream | undefined;
  let over = false;
  let delivered = 0;
  let records = 0;
  // One stream is read at a time: a new one waits until the one it replaces has stopped writing.
  let reading = Promise.resolve();

  const read = async (stream: http2.ServerHttp2Stream, trailers: () => http2.IncomingHttpHeaders | undefined): Promise<void> => {
    if (over || stream !== current || stream.closed || stream.destroyed) {
      return;
    }
    stream.respond({ ':status': 200, [HEADERS.offset]: String(delivered) });
    let held: { bytes: Buffer; records: number } | undefined;
    // Hands a frame to the client; false when it could not (the run then ends here).
    const pass = async (frame: { bytes: Buffer; records: number }): Promise<boolean> => {
      try {
        await handlers.write(frame.bytes);
      } catch (error) {
        // Closed with NO_ERROR before the loop's exit destroys the stream (which would say CANCEL, a
        // lost link, and have the worker try again): its worker stops the run.
        if (!over && stream === current) {
          over = true;
          stream.close(http2.constants.NGHTTP2_NO_ERROR);
          handlers.onWriteFailed(error);
        }
        return false;
      }
      delivered += frame.bytes.length;
      records = frame.records;
      return true;
    };
    // A frame's bytes arrive in pieces (HTTP/2 DATA frames of 16 KiB): gathered, then joined once.
    const pieces: Buffer[] = [];
    let gathered = 0;
    let need = frameHeaderBytes;
    let header: { length: number; records: number } | undefined;
    try {
      for await (const piece of stream as AsyncIterable<Buffer>) {
        pieces.push(piece);
        gathered += piece.length;
        while (gathered >= need) {
          const joined = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, gathered);
          pieces.length = 0;
          if (header === undefined) {
            header = { length: joined.readUInt32BE(0), records: joined.readUInt32BE(4) };
            need = frameHeaderBytes + header.length;
            pieces.push(joined);
            continue;
          }
          const payload = joined.subarray(frameHeaderBytes, need);
          const rest = joined.subarray(need);
          const frame = { bytes: payload, records: header.records };
          header = undefined;
          need = frameHeaderBytes;
          gathered = rest.length;
          if (rest.length > 0) {
            pieces.push(rest);
          }
          if (held !== undefined && !(await pass(held))) {
            return;
          }
          held = undefined;
          // A frame short of the run's last record is never its last: it goes to the client at once (the
          // first bytes of a large run do not wait for its second frame). One that completes the records
          // may be the last (a footer or the JSON tail may follow): held until the next frame or the end.
          if (frame.records < totalRecords) {
            if (!(await pass(frame))) {
              return;
            }
          } else {
            held = frame;
          }
          if (over || stream !== current) {
            return;
          }
        }
      }
    } catch {
      // The link or the worker was lost: a worker that takes the run over attaches again.
      return;
    }
    const ended = trailers();
    const outcome = ended?.[HEADERS.outcome];
    if (over || stream !== current || gathered > 0 || (outcome !== 'completed' && outcome !== 'failed')) {
      // Cut short (no trailers, or half a frame): interrupted, as above.
      return;
    }
    over = true;
    // The worker may finish its job: the run is whole here.
    stream.end();
    handlers.onEnd({
      outcome,
      startedAt: Number(ended?.[HEADERS.startedAt]),
      finishedAt: Number(ended?.[HEADERS.finishedAt]),
      computeMs: Number(ended?.[HEADERS.computeMs]),
      last: held?.bytes ?? Buffer.alloc(0),
      records: held?.records ?? records,
    });
  };

  return {
    attach: (stream) => {
      if (over) {
        stream.respond({ ':status': 404 }, { endStream: true });
        return;
      }
      const previous = current;
      current = stream;
      if (previous !== undefined && !previous.closed) {
        previous.close(http2.constants.NGHTTP2_CANCEL);
      }
      // Listened for at once: trailers may come before the reading below starts.
      let trailers: http2.IncomingHttpHeaders | undefined;
      stream.once('trailers', (received: http2.IncomingHttpHeaders) => {
        trailers = received;
      });
      // A write failure is reported by `read`, wherever it happened; the rest is a stream that ended early.
      const reads = reading.then(() => read(stream, () => trailers));
      reading = reads.catch(() => {});
    },
    stop: (reason) => {
      over = true;
      if (current !== undefined && !current.closed) {
        current.close(reason === 'ended' ? http2.constants.NGHTTP2_NO_ERROR : http2.constants.NGHTTP2_CANCEL);
      }
    },
    delivered: () => delivered,
    records: () => records,
  };
};
