import type { DatabasePool } from 'slonik';
import { findStreamStates, type StreamRow } from '../../shared/db/queries/streams.ts';
import type { Logger } from '../../shared/logger.ts';
import { describeError } from '../../shared/errors/describeError.ts';

/** What an SSE reader needs to know while it waits on its clock: whether its stream ended, and how far. */
type StreamState = Pick<StreamRow, 'status' | 'delivered'>;

interface StreamFollow {
  /** The state last read, or undefined until the first reading after follow(). */
  readonly current: () => StreamState | undefined;
  /** The reader is done; idempotent. */
  readonly release: () => void;
}

export interface StreamWatch {
  readonly follow: (id: string) => StreamFollow;
  /** Stops reading; the followers keep their last state. */
  readonly close: () => void;
}

/**
 * The status and `delivered` of every stream this process's SSE readers read, in one query per interval
 * for all of them (docs/streams.md, "How it runs"): a reader waiting on its clock learns within about an
 * interval that its stream was cancelled or failed, and a thousand readers cost one statement a second,
 * not a thousand (docs/development.md#code-conventions). Readers of one stream share its entry. A failed reading is logged and the
 * next one tried; the readers keep the last state meanwhile.
 */
export const createStreamWatch = (pool: DatabasePool, logger: Logger, intervalMs = 1000): StreamWatch => {
  const followed = new Map<string, { readers: number; state: StreamState | undefined }>();
  let timer: NodeJS.Timeout | undefined;
  let reading = false;
  let closed = false;

  // One reading at a time: the next is scheduled an interval after the last one ended.
  const schedule = (): void => {
    if (timer === undefined && !reading && !closed && followed.size > 0) timer = setTimeout(() => void read(), intervalMs);
  };
  const read = async (): Promise<void> => {
    timer = undefined;
    const ids = [...followed.keys()];
    if (ids.length === 0 || closed) return;
    reading = true;
    try {
      for (const row of await findStreamStates(pool, ids)) {
        const entry = followed.get(row.id);
        if (entry !== undefined) entry.state = { status: row.status, delivered: row.delivered };
      }
    } catch (error) {
      logger.warn({ error: describeError(error) }, 'stream states could not be read');
    } finally {
      reading = false;
    }
    schedule();
  };

  return {
    follow: (id) => {
      const entry = followed.get(id) ?? { readers: 0, state: undefined };
      entry.readers += 1;
      followed.set(id, entry);
      schedule();
      let released = false;
      return {
        current: () => entry.state,
        release: () => {
          if (released) return;
          released = true;
          entry.readers -= 1;
          if (entry.readers === 0 && followed.get(id) === entry) followed.delete(id);
        },
      };
    },
    close: () => {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
};
