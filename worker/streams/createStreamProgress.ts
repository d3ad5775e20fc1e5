import type { DatabasePool } from 'slonik';
import { recordDeliveredMany } from '../../shared/db/queries/streams.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import type { Logger } from '../../shared/logger.ts';

interface StreamClockProgress {
  /** How far the stream's events are due now; written with the other clocks' at the next recording. */
  readonly report: (delivered: number) => void;
  /** False once a recording found the stream no longer running (cancelled, failed, completed or gone). */
  readonly running: () => boolean;
  /** The clock is done; idempotent. */
  readonly release: () => void;
}

export interface StreamProgress {
  readonly follow: (id: string, delivered: number) => StreamClockProgress;
  /** Writes what was reported since the last recording, then stops. */
  readonly close: () => Promise<void>;
}

/**
 * The `delivered` of every stream clock on this worker, recorded in PostgreSQL every `intervalMs` in one
 * statement for all of them, which also reads their statuses (docs/streams.md, "How it runs"): a
 * thousand clocks cost one statement per interval, not two each (a group commit, as the ledger writes its rows: docs/architecture.md#limits-and-the-ledger). A clock sees a
 * cancellation at the recording after it. A failed recording is logged and the next one writes the
 * positions then reached.
 */
export const createStreamProgress = (pool: DatabasePool, logger: Logger, intervalMs = 2000): StreamProgress => {
  const clocks = new Map<string, { delivered: number; running: boolean; clocks: number }>();
  let timer: NodeJS.Timeout | undefined;
  let recording: Promise<void> | undefined;
  let closed = false;

  const record = async (): Promise<void> => {
    const entries = [...clocks].map(([id, clock]) => ({ id, delivered: clock.delivered }));
    if (entries.length === 0) return;
    try {
      const states = new Map((await recordDeliveredMany(pool, entries)).map((row) => [row.id, row.status]));
      for (const entry of entries) {
        const clock = clocks.get(entry.id);
        if (clock !== undefined && states.get(entry.id) !== 'running') clock.running = false;
      }
    } catch (error) {
      logger.warn({ error: describeError(error) }, 'stream progress could not be recorded');
    }
  };
  // One recording at a time: the next is scheduled an interval after the last one ended.
  const schedule = (): void => {
    if (timer !== undefined || recording !== undefined || closed || clocks.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      recording = record().finally(() => {
        recording = undefined;
        schedule();
      });
    }, intervalMs);
  };

  return {
    follow: (id, delivered) => {
      const clock = clocks.get(id) ?? { delivered, running: true, clocks: 0 };
      clock.clocks += 1;
      clocks.set(id, clock);
      schedule();
      let released = false;
      return {
        report: (position) => {
          clock.delivered = Math.max(clock.delivered, position);
        },
        running: () => clock.running,
        release: () => {
          if (released) return;
          released = true;
          clock.clocks -= 1;
          if (clock.clocks === 0 && clocks.get(id) === clock) clocks.delete(id);
        },
      };
    },
    close: async () => {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await recording;
      await record();
    },
  };
};
