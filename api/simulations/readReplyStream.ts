import type { RedisClient } from '../../shared/redis/createRedis.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import { parseSimulationReply, type SimulationReply } from '../../shared/jobs/simulationReply.ts';
import type { Logger } from '../../shared/logger.ts';

export interface ReplyStreamReader {
  /** Resolves once the reader's connection is up. */
  readonly ready: Promise<void>;
  /** Resolves once the loop has ended (after its connection was closed). */
  readonly stopped: Promise<void>;
}

/** A blocking read returns at least this often, so a closed process's loop ends promptly. */
const BLOCK_MS = 1000;
/** Entries per read: bounded by the chunks in flight anyway (STREAM_WINDOW_CHUNKS per streamed run). */
const READ_COUNT = 8;

/**
 * The loop that reads an API process's reply stream on its own blocking connection and deletes what it
 * read. It reads on from the last id it handled, so an entry appended while the connection was down (the
 * reader killed, Redis restarted) is read once it is back: ioredis resends the pending read on reconnect.
 */
export const readReplyStream = (options: {
  readonly redis: RedisClient;
  /** A second connection for the deletes, so they never wait behind a blocking read. */
  readonly deleter: RedisClient;
  readonly stream: string;
  readonly logger: Logger;
  readonly isClosed: () => boolean;
  readonly onReply: (reply: SimulationReply, body: Buffer | undefined) => void;
}): ReplyStreamReader => {
  const { redis, deleter, stream, logger } = options;
  let lastId = '0-0';
  const ready =
    redis.status === 'ready' ? Promise.resolve() : new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  const handle = (fields: Buffer[]): void => {
    let notice: string | undefined;
    let body: Buffer | undefined;
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const name = fields[i]!.toString();
      if (name === 'm') notice = fields[i + 1]!.toString();
      else if (name === 'b') body = fields[i + 1];
    }
    const reply = notice === undefined ? undefined : parseSimulationReply(notice);
    if (reply === undefined) {
      logger.warn('malformed simulation reply dropped');
      return;
    }
    options.onReply(reply, body);
  };
  const loop = async (): Promise<void> => {
    while (!options.isClosed()) {
      let result: [Buffer, [Buffer, Buffer[]][]][] | null;
      try {
        // A read pending when the connection drops is sent again by ioredis, with this same last id.
        result = await redis.xreadBuffer('COUNT', READ_COUNT, 'BLOCK', BLOCK_MS, 'STREAMS', stream, lastId);
      } catch (error) {
        if (options.isClosed()) {
          return;
        }
        logger.debug({ error: describeError(error) }, 'reply stream read failed');
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      const ids: string[] = [];
      for (const [, entries] of result ?? []) {
        for (const [id, fields] of entries) {
          lastId = id.toString();
          ids.push(lastId);
          handle(fields);
        }
      }
      if (ids.length > 0) {
        // Memory is given back as soon as an entry is read; if this fails, the stream's TTL cleans up.
        deleter.xdel(stream, ...ids).catch(() => {});
      }
    }
  };
  const stopped = loop().catch((error: unknown) => logger.error({ error: describeError(error) }, 'reply stream reader stopped'));
  return { ready, stopped };
};
